/** Start- and end-date candidates: every date, as either, with the periods that pair two dates ("from ... to ...") and the year they span. */
import { findDates, monthNumber } from '../dates.js';
import type { LabelKind } from '../labels.js';
import { fold } from '../text.js';
import type { FieldCandidate } from './candidate.js';
import type { DocumentIndex, Span } from './document-index.js';
import { distractors, labelRelations, positionFeatures, withRepeats, type Relations } from './features.js';
import { CONNECTOR, DATE_LEAD_IN, NOT_PERIOD } from './vocabulary.js';

interface DateOcc {
  iso: string;
  span: Span;
  certainty: number;
}

const addDays = (iso: string, years: number, days: number): string => {
  const d = new Date(`${iso}T00:00:00Z`);
  d.setUTCFullYear(d.getUTCFullYear() + years);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
};

export function dateCandidates(doc: DocumentIndex): FieldCandidate[] {
  const occs: DateOcc[] = [];
  const pairFirst = new Set<DateOcc>();
  const pairSecond = new Set<DateOcc>();
  doc.lines.forEach((line, i) => {
    let found = doc.datesOf(i);
    // A period wrapped onto the next line ("16 February 2026 to 15 February" / "2027"): read the two lines joined.
    const next = doc.lines[i + 1];
    const tail = /(\S+)\s*$/.exec(line.text)?.[1] ?? '';
    if (next && (/^\d{1,2}(?:st|nd|rd|th|er|\.)?$/.test(tail) || monthNumber(tail) !== null) && /^\s*[\dA-Za-zÀ-ÿ]/.test(next.text)) {
      const joined = `${line.text} ${next.text}`;
      const more = findDates(joined).filter((d) => d.index < line.text.length && d.end > line.text.length);
      found = [...found.filter((d) => !more.some((m) => d.index >= m.index && d.index < m.end)), ...more].sort((a, b) => a.index - b.index);
    }
    const lineOccs = found.map((d): DateOcc => ({
      iso: d.iso,
      certainty: d.certainty,
      span: { line: i, cell: doc.cellOf(i, d.index), start: d.index, end: d.end },
    }));
    for (let k = 0; k + 1 < lineOccs.length; k++) {
      const a = lineOccs[k]!;
      const b = lineOccs[k + 1]!;
      const between = fold(`${line.text} ${next?.text ?? ''}`.slice(found[k]!.end, found[k + 1]!.index));
      if (
        CONNECTOR.test(between.replace(/,?\s*\d{1,2}[:.h]\d{2}\s*(?:uhr|hours|h)?/g, ' ').replace(/\b\d{1,2}\s*uhr\b/g, ' ')) &&
        a.iso < b.iso
      ) {
        pairFirst.add(a);
        pairSecond.add(b);
      }
    }
    occs.push(...lineOccs);
  });
  // A period whose first date was wrapped ("du 1er" / "septembre 2025 au 26 septembre 2025"): pair it with the next line's first date.
  for (const a of occs) {
    const line = doc.lines[a.span.line]!.text;
    if (a.span.end <= line.length) continue;
    const b = occs.find((o) => o.span.line === a.span.line + 1);
    const next = doc.lines[a.span.line + 1]?.text ?? '';
    if (!b || b.span.start < a.span.end - line.length - 1) continue;
    const between = fold(next.slice(a.span.end - line.length - 1, b.span.start));
    if (CONNECTOR.test(between) && a.iso < b.iso) {
      pairFirst.add(a);
      pairSecond.add(b);
    }
  }
  // A period broken after its first date ("... pour la période du 04/03/2026" / "au 22/03/2026 inclus"): the last
  // date of a line and the first of the next, with only a connector between them. OCR leaves stray marks ("…", "|")
  // at a line's end, which are dropped on OCR lines only.
  for (let k = 0; k + 1 < occs.length; k++) {
    const a = occs[k]!;
    const b = occs[k + 1]!;
    if (b.span.line !== a.span.line + 1 || pairFirst.has(a) || pairSecond.has(b) || a.iso >= b.iso) continue;
    const lineA = doc.lines[a.span.line]!;
    const lineB = doc.lines[b.span.line]!;
    if (a.span.end > lineA.text.length) continue;
    let between = fold(`${lineA.text.slice(a.span.end)} ${lineB.text.slice(0, b.span.start)}`);
    if (lineA.ocr || lineB.ocr) between = between.replace(/[^\p{L}\d\s\-–—]/gu, ' ');
    if (CONNECTOR.test(between)) {
      pairFirst.add(a);
      pairSecond.add(b);
    }
  }
  const isos = new Set(occs.map((o) => o.iso));
  const sorted = [...isos].sort();
  const out: FieldCandidate[] = [];
  for (const o of occs) {
    const base: Relations = { bias: 1, ...positionFeatures(doc, o.span.line), ...distractors(doc, o.span, NOT_PERIOD) };
    if (o.certainty < 1) base.uncertain = 1 - o.certainty;
    const yearAfter = isos.has(addDays(o.iso, -1, 1)) || isos.has(addDays(o.iso, -1, 0));
    const yearBefore = isos.has(addDays(o.iso, 1, -1)) || isos.has(addDays(o.iso, 1, 0));
    const rank = sorted.length > 1 ? sorted.indexOf(o.iso) / (sorted.length - 1) : 0.5;
    const fieldFeatures = (field: 'start_date' | 'end_date'): Relations => {
      const own: LabelKind[] = field === 'start_date' ? ['start', 'period'] : ['end', 'period'];
      const f: Relations = { ...base, ...labelRelations(doc, o.span, own, DATE_LEAD_IN) };
      if (pairFirst.has(o)) f[field === 'start_date' ? 'pair_own' : 'pair_other'] = 1;
      if (pairSecond.has(o)) f[field === 'start_date' ? 'pair_other' : 'pair_own'] = 1;
      if (field === 'start_date' ? yearBefore : yearAfter) f.year_span = 1;
      f.rank = field === 'start_date' ? 1 - rank : rank;
      return f;
    };
    out.push({ field: 'start_date', value: o.iso, key: o.iso, line: o.span.line, features: fieldFeatures('start_date') });
    out.push({ field: 'end_date', value: o.iso, key: o.iso, line: o.span.line, features: fieldFeatures('end_date') });
  }
  return withRepeats(out.filter((c) => c.field === 'start_date')).concat(withRepeats(out.filter((c) => c.field === 'end_date')));
}
