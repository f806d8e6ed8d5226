/** Vehicle-registration candidates: the plates each line holds for the countries in question. */
import { NOT_POLICY_CONTEXT } from '../labels.js';
import { normalisePlate } from '../plates.js';
import type { CandidateContext, FieldCandidate } from './candidate.js';
import type { DocumentIndex, Span } from './document-index.js';
import { distractors, labelRelations, positionFeatures, withRepeats, type Relations } from './features.js';

export function plateCandidates(doc: DocumentIndex, ctx: CandidateContext): FieldCandidate[] {
  const out: FieldCandidate[] = [];
  doc.lines.forEach((line, i) => {
    for (const p of doc.platesOf(i, ctx.countries)) {
      if (p.certainty < 1 && !line.ocr) continue;
      const key = normalisePlate(p.plate);
      const at = line.text
        .toUpperCase()
        .replace(/[^A-Z0-9ÄÖÜ]/g, (c) => c)
        .search(new RegExp(key.split('').join('[\\s-]?')));
      const start = Math.max(0, at);
      const span: Span = { line: i, cell: doc.cellOf(i, start), start, end: start + p.plate.length };
      const f: Relations = {
        bias: 1,
        ...labelRelations(doc, span, ['registration']),
        ...positionFeatures(doc, i),
        ...distractors(doc, span, NOT_POLICY_CONTEXT),
      };
      if (p.certainty < 1) f.uncertain = 1 - p.certainty;
      if (ctx.country && p.country === ctx.country) f.country_match = 1;
      if (ctx.type === 'motor') f.motor = 1;
      else if (ctx.type) f.other_type = 1;
      out.push({ field: 'vehicle_registration', value: p.plate, key, line: i, features: f });
    }
  });
  return withRepeats(out);
}
