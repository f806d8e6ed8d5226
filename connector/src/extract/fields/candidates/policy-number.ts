/** Policy-number candidates: every reading of a number that starts a word, outside dates, with its label, distractor and shape features. */
import { normalisePolicyNumber } from '../../../verify/normalise.js';
import { NOT_POLICY_CONTEXT } from '../labels.js';
import type { Line } from '../../reading/lines.js';
import { readPolicyNumbers, type PolicyReading } from '../policy-number.js';
import { fold } from '../text.js';
import type { CandidateContext, FieldCandidate } from './candidate.js';
import type { DocumentIndex, Span } from './document-index.js';
import { distractors, labelRelations, positionFeatures, withRepeats, type Relations } from './features.js';
import { POST_BOX_END, POST_BOX_START, SECONDARY } from './vocabulary.js';

/** A cell that is one group of a number printed with wide gaps ("5914   2866   1009", a comb field): digits, or a short letter prefix first. */
const GROUP = /^\d{1,6}$/;
const FIRST_GROUP = /^(?:[A-Z]{1,4}|\d{1,6})$/;

/**
 * Runs of cells that together print one number in groups: each a digit group, evenly spaced (within a third of
 * the first step), at least two of them. As [first cell, last cell].
 */
function groupedRuns(line: Line): Array<[number, number]> {
  const runs: Array<[number, number]> = [];
  const cells = line.cells;
  for (let k = 0; k + 1 < cells.length; k++) {
    if (!FIRST_GROUP.test(cells[k]!.text) || !GROUP.test(cells[k + 1]!.text)) continue;
    const step = cells[k + 1]!.x - cells[k]!.x;
    let j = k + 1;
    while (j + 1 < cells.length && GROUP.test(cells[j + 1]!.text) && Math.abs(cells[j + 1]!.x - cells[j]!.x - step) <= step / 3) j++;
    runs.push([k, j]);
    k = j;
  }
  return runs;
}

/** The countries whose account numbers are IBANs (ISO 13616's register): an IBAN starts with one of them. */
const IBAN_COUNTRIES = new Set(
  (
    'AD AE AL AT AZ BA BE BG BH BI BR BY CH CR CY CZ DE DJ DK DO EE EG ES FI FK FO FR GB GE GI GL GR GT HN HR HU IE IL IQ IS ' +
    'IT JO KW KZ LB LC LI LT LU LV LY MC MD ME MK MN MR MT MU NI NL NO OM PK PL PS PT QA RO RS RU SA SC SD SE SI SK SM SO ' +
    'ST SV TL TN TR UA VA VG XK YE'
  ).split(' '),
);

/** A number shaped like an IBAN: a country's code, two check digits, ten to thirty letters and digits ("PZ 724 …" is not one). */
const ibanLike = (key: string): boolean => /^[A-Z]{2}[0-9]{2}[A-Z0-9]{10,30}$/.test(key) && IBAN_COUNTRIES.has(key.slice(0, 2));

export function policyCandidates(doc: DocumentIndex, ctx: CandidateContext, exclude: Set<string>): FieldCandidate[] {
  const out: FieldCandidate[] = [];
  doc.lines.forEach((line, i) => {
    const dates = doc.datesOf(i);
    const spans = doc.spans[i]!;
    const add = (reading: PolicyReading, span: Span, cellText: string, before: string): void => {
      const key = normalisePolicyNumber(reading.value);
      const digits = key.replace(/[^0-9]/g, '').length;
      const f: Relations = {
        bias: 1,
        ...labelRelations(doc, span, ['policy']),
        ...distractors(doc, span, NOT_POLICY_CONTEXT),
        ...positionFeatures(doc, i),
      };
      if (reading.plausible) f.plausible = 1;
      if (SECONDARY.test(fold(reading.value.split(' ')[0]!))) f.secondary_prefix = 1;
      if (reading.repaired) f.repaired = 1;
      if (/[A-Z]/i.test(key)) f.letters = 1;
      if (/[/\-.]/.test(reading.value)) f.separators = 1;
      f.digits = Math.min(16, digits) / 16;
      if (/^(?:\+|0)/.test(reading.value) && digits >= 9 && /\s/.test(reading.value)) f.phoneish = 1;
      if (/[£€$%]|\b(?:eur|gbp)\b/i.test(cellText)) f.money = 1;
      if (/^[0-9]{5}$/.test(key) || ibanLike(key)) f.postcode_iban = 1;
      // A post-office box of an address ("CS 12345", "Postfach 12 34 56", "PO Box 123"): its word starts the reading or ends the text before it.
      if (POST_BOX_START.test(fold(reading.value)) || POST_BOX_END.test(fold(before))) f.post_box = 1;
      out.push({ field: 'policy_number', value: reading.value, key, line: i, features: f });
    };
    spans.forEach((cs, cell) => {
      const cellText = line.text.slice(cs.start, cs.end);
      // Word starts in the cell: a reading starts at each; keep the first reading per start.
      const seen = new Set<string>();
      for (const m of cellText.matchAll(/\S+/g)) {
        const start = cs.start + m.index;
        if (dates.some((d) => start >= d.index && start < d.end)) continue;
        let text = line.text.slice(start, cs.end);
        const dateIn = dates.find((d) => d.index > start && d.index < cs.end);
        if (dateIn) text = line.text.slice(start, dateIn.index);
        if (!/[0-9]/.test(text.slice(0, 40))) continue;
        const reading = readPolicyNumbers(text.slice(0, 60), ctx.country, ctx.type, { ocr: !!line.ocr, labelled: true, atStart: true })[0];
        if (!reading || !text.startsWith(reading.value.split(' ')[0]!)) continue;
        const key = normalisePolicyNumber(reading.value);
        if (seen.has(key) || exclude.has(key) || key.length < 5) continue;
        seen.add(key);
        add(reading, { line: i, cell, start, end: start + reading.value.length }, cellText, line.text.slice(cs.start, start));
      }
    });
    for (const [first, last] of groupedRuns(line)) {
      const text = line.cells
        .slice(first, last + 1)
        .map((c) => c.text)
        .join(' ');
      const reading = readPolicyNumbers(text, ctx.country, ctx.type, { ocr: !!line.ocr, labelled: true, atStart: true })[0];
      if (!reading || reading.value !== text) continue;
      const key = normalisePolicyNumber(reading.value);
      if (exclude.has(key) || key.length < 5) continue;
      add(reading, { line: i, cell: first, start: spans[first]!.start, end: spans[last]!.end }, text, '');
    }
  });
  return withRepeats(out);
}
