/**
 * Fits the extraction ranker (connector/src/extract/fields/ranker-model.json): a logistic model per field over the
 * candidates' features (extract/fields/candidates/), then isotonic calibration of the winners' scores and a per-field
 * threshold. Fitted on the OWN generated corpus only (test/fixtures/policies); the outside documents are
 * only measured. Also reports generalisation both ways: trained on own -> measured on the outside documents,
 * and trained on the outside documents -> measured on own (that second model is never written).
 *
 *   npm run train:extract [-- --cache] [--dry-run] [--procedural=N] [--procedural-pdfs=N]
 *
 * --procedural-pdfs=N adds the first N train-split documents of the procedural PDF generator
 * (scripts/procedural/pdf-documents.ts), read as the extractor reads them (their lines cached), and reports the
 * eval's 200 validation-split documents.
 *
 * The weights are MAP estimates under a Gaussian prior centred on hand-set weights (PRIOR below): a feature
 * the own corpus never exercises (a secondary-number label, a broker's name) keeps its prior weight instead
 * of falling to zero, and one the corpus does exercise moves as far as the data says.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FieldCandidate, RankedField } from '../connector/src/extract/fields/candidates/index.js';
import { RANKED_FIELDS } from '../connector/src/extract/fields/candidates/index.js';
import { documentCandidates, extractFieldsFromLines, type InsurerMatcher } from '../connector/src/extract/fields/document-fields.js';
import { loadShippedRegisterRows, matcherFromRows } from '../connector/src/extract/fields/insurer-matcher.js';
import { createOcr, type Ocr } from '../connector/src/extract/reading/ocr.js';
import { calibrate, SHIPPED_MODEL, type RankerModel } from '../connector/src/extract/fields/ranker.js';
import { sameField } from './extract-eval/compare.js';
import {
  documentLines,
  loadCorpus,
  loadProceduralCorpus,
  type CorpusDoc,
  type CorpusName,
  type ReadLines,
} from './extract-eval/corpora.js';
import { POLICY_KINDS, policyDocument } from './procedural/document-lines.js';
import { seedsOf, type Split } from './procedural/pdf-documents.js';
import { writeProceduralCorpus } from './procedural/write-corpus.js';

const OUT = fileURLToPath(new URL('../connector/src/extract/fields/ranker-model.json', import.meta.url));
const REGISTER = fileURLToPath(new URL('../connector/data/register/', import.meta.url));
const useCache = process.argv.includes('--cache');
const dryRun = process.argv.includes('--dry-run');

/** Hand-set prior weights: what a reader of policy documents expects each feature to mean, before any data. */
const LABEL_PRIOR = {
  lab_own_adj: 4,
  lab_own_left: 3.5,
  lab_own_above: 3,
  lab_own_sent: 2.5,
  lab_own_wrap: 2.5,
  lab_own_left_far: 0.5,
  lab_other_left_far: -0.5,
  lab_other_wrap: -1,
  lab_other_adj: -2.5,
  lab_other_left: -2,
  lab_other_above: -1.5,
  lab_other_sent: -1,
  lab_fuzzy: -0.3,
};
const DATE_PRIOR = {
  ...LABEL_PRIOR,
  bias: -3,
  lab_alt_adj: 2.5,
  lab_alt_left: 2,
  lab_alt_above: 2,
  lab_alt_sent: 2,
  lab_alt_wrap: 2,
  lab_alt_left_far: 0.3,
  pair_own: 2.5,
  pair_other: -2.5,
  year_span: 1.5,
  rank: 0.5,
  distract_near: -3,
  distract_line: -1,
  distract_above: -1,
  uncertain: -1,
  repeat: 0.3,
  page2: -0.3,
};
const PRIOR: Record<RankedField, Record<string, number>> = {
  policy_number: {
    ...LABEL_PRIOR,
    bias: -3,
    lab_secondary: -1.5,
    secondary_prefix: -2,
    plausible: 1.5,
    repaired: -0.5,
    distract_near: -3,
    distract_line: -1,
    distract_above: -0.5,
    phoneish: -2.5,
    money: -2.5,
    postcode_iban: -2,
    // A post-office box ("CS 12345", "Postfach 123456") is part of an address.
    post_box: -3.5,
    repeat: 0.8,
    page2: -0.3,
    bottom: -0.5,
    digits: 0.5,
  },
  insurer: {
    ...LABEL_PRIOR,
    bias: -3,
    truncated: -2,
    from_label: 2.5,
    lab_own_adj: 1,
    lab_own_sent: 1,
    lab_own_left: 1,
    lab_own_above: 1,
    org_word: 1.5,
    register_exact: 2,
    register_close: 1.5,
    lowercase: -4,
    legal_form: 1.5,
    person: -4,
    department: -3,
    has_label: -4,
    brand_of_legal: -1.5,
    // Named as the broker, agent or distributor somewhere in the document.
    intermediary: -4,
    extends_other: 1.5,
    title_word: -3,
    extended_by: -1.5,
    digits: -2,
    top: 1,
    bottom: 0.5,
    distract_near: -1.5,
    distract_line: -0.5,
    repeat: 1,
  },
  start_date: DATE_PRIOR,
  end_date: DATE_PRIOR,
  vehicle_registration: {
    ...LABEL_PRIOR,
    bias: -2,
    country_match: 1,
    motor: 1.5,
    other_type: -3,
    uncertain: -1,
    distract_near: -1,
    repeat: 0.5,
  },
};
/** No field is guaranteed: a winner below this confidence is a guess, and is left out whatever the corpus says. */
const MIN_CONFIDENCE = 0.2;
/** Strength of the pull towards the prior (per feature, in log-loss units). */
const LAMBDA = 8;

interface Example {
  features: Record<string, number>;
  y: number;
}
interface DocData {
  doc: CorpusDoc;
  read: ReadLines;
}

function priorModel(): RankerModel {
  return {
    fields: Object.fromEntries(RANKED_FIELDS.map((f) => [f, { weights: { ...PRIOR[f] }, threshold: 0 }])) as RankerModel['fields'],
    calibration: [],
  };
}

/** MAP logistic regression by gradient descent; candidates of one document and field weigh 1 in total per class. */
function fit(examples: Example[], prior: Record<string, number>): Record<string, number> {
  const names = [...new Set([...Object.keys(prior), ...examples.flatMap((e) => Object.keys(e.features))])];
  const w = Object.fromEntries(names.map((n) => [n, prior[n] ?? 0]));
  const pos = examples.filter((e) => e.y === 1).length || 1;
  const neg = examples.length - pos || 1;
  const rate = 0.5;
  for (let it = 0; it < 600; it++) {
    const g: Record<string, number> = Object.fromEntries(names.map((n) => [n, LAMBDA * (w[n]! - (prior[n] ?? 0))]));
    for (const e of examples) {
      let z = 0;
      for (const [k, v] of Object.entries(e.features)) z += w[k]! * v;
      const p = 1 / (1 + Math.exp(-z));
      // Balanced classes: a document has one right value and many wrong ones.
      const weight = e.y === 1 ? examples.length / (2 * pos) : examples.length / (2 * neg);
      for (const [k, v] of Object.entries(e.features)) g[k]! += weight * (p - e.y) * v;
    }
    for (const n of names) w[n]! -= (rate / examples.length) * g[n]! * Math.min(1, 50 / Math.sqrt(it + 1));
  }
  return Object.fromEntries(Object.entries(w).map(([k, v]) => [k, Math.round(v * 1000) / 1000]));
}

/** Pool-adjacent-violators over (score, right) pairs: non-decreasing steps [upper bound, accuracy]. */
function isotonic(points: Array<[number, number]>): Array<[number, number]> {
  const sorted = [...points].sort((a, b) => a[0] - b[0]);
  const blocks: Array<{ hi: number; sum: number; n: number }> = [];
  for (const [x, y] of sorted) {
    blocks.push({ hi: x, sum: y, n: 1 });
    while (
      blocks.length > 1 &&
      blocks[blocks.length - 2]!.sum / blocks[blocks.length - 2]!.n >= blocks[blocks.length - 1]!.sum / blocks[blocks.length - 1]!.n
    ) {
      const b = blocks.pop()!;
      const a = blocks[blocks.length - 1]!;
      a.hi = b.hi;
      a.sum += b.sum;
      a.n += b.n;
    }
  }
  // Shrunk towards the raw score's own claim: a step holding few winners cannot claim certainty.
  return blocks.map((b) => [Math.round(b.hi * 1e4) / 1e4, Math.round(((b.sum + 0.5 * b.hi) / (b.n + 1)) * 1000) / 1000]);
}

function examplesOf(data: DocData[], matcher: InsurerMatcher, model: RankerModel): Record<RankedField, Example[]> {
  const out = Object.fromEntries(RANKED_FIELDS.map((f) => [f, [] as Example[]])) as Record<RankedField, Example[]>;
  for (const { doc, read } of data) {
    const c = documentCandidates(
      { lines: read.lines, ...(read.ocrConfidence !== undefined ? { ocrConfidence: read.ocrConfidence } : {}) },
      matcher,
      model,
    );
    for (const f of RANKED_FIELDS)
      for (const cand of c.candidates[f] as FieldCandidate[])
        out[f].push({ features: cand.features, y: sameField(f, doc.truth[f], cand.value) ? 1 : 0 });
  }
  return out;
}

function train(data: DocData[], matcher: InsurerMatcher): RankerModel {
  let model = priorModel();
  // Twice: the country (and so the policy-number candidates) depends on the insurer the model picks.
  for (let round = 0; round < 2; round++) {
    const ex = examplesOf(data, matcher, model);
    model = {
      ...model,
      fields: Object.fromEntries(RANKED_FIELDS.map((f) => [f, { weights: fit(ex[f], PRIOR[f]), threshold: 0 }])) as RankerModel['fields'],
    };
  }
  // Calibration: the winners' raw scores against whether they were right, over all fields.
  const points: Array<[number, number]> = [];
  const uncal = { ...model, calibration: [] };
  const perField: Record<string, Array<[number, number, boolean]>> = {};
  for (const { doc, read } of data) {
    const r = extractFieldsFromLines(
      { lines: read.lines, ...(read.ocrConfidence !== undefined ? { ocrConfidence: read.ocrConfidence } : {}) },
      matcher,
      uncal,
    );
    for (const f of RANKED_FIELDS) {
      const conf = r.fields.confidence[f];
      const ok = sameField(f, doc.truth[f], r.fields[f] as string | undefined);
      if (conf !== undefined) points.push([conf, ok ? 1 : 0]);
      (perField[f] ??= []).push([conf ?? -1, doc.truth[f] ? 1 : 0, ok]);
    }
  }
  model.calibration = isotonic(points);
  // Threshold per field: the least calibrated confidence worth returning (a travel policy has no plate to find).
  for (const f of RANKED_FIELDS) {
    let best = { t: MIN_CONFIDENCE, right: -1 };
    for (const t of [0.1, 0.2, 0.3, 0.4, 0.5, 0.6].filter((x) => x >= MIN_CONFIDENCE)) {
      const right = perField[f]!.filter(([raw, present, ok]) => {
        const conf = raw < 0 ? -1 : calibrate(model, raw);
        return conf >= t ? ok : present === 0;
      }).length;
      if (right > best.right) best = { t, right };
    }
    model.fields[f].threshold = best.t;
  }
  return model;
}

function evaluate(
  data: DocData[],
  matcher: InsurerMatcher,
  model: RankerModel,
): { text: number; scan: number; high: number; highN: number } {
  const tally = { text: [0, 0], scan: [0, 0], high: [0, 0] };
  for (const { doc, read } of data) {
    const r = extractFieldsFromLines(
      { lines: read.lines, ...(read.ocrConfidence !== undefined ? { ocrConfidence: read.ocrConfidence } : {}) },
      matcher,
      model,
    );
    for (const f of ['policy_number', 'insurer', 'insurance_type', 'start_date', 'end_date', 'vehicle_registration'] as const) {
      const ok = sameField(f, doc.truth[f], r.fields[f] as string | undefined);
      const t = tally[doc.scanned ? 'scan' : 'text'];
      t[0]! += ok ? 1 : 0;
      t[1]! += 1;
      if ((r.fields.confidence[f] ?? 0) >= 0.9) {
        tally.high[0]! += ok ? 1 : 0;
        tally.high[1]! += 1;
      }
    }
  }
  const pct = (t: number[]): number => (t[1] ? (100 * t[0]!) / t[1]! : NaN);
  return { text: pct(tally.text), scan: pct(tally.scan), high: pct(tally.high), highN: tally.high[1]! };
}

const matcher = matcherFromRows(await loadShippedRegisterRows(REGISTER));
let ocr: Ocr | null = null;
const getOcr = async (): Promise<Ocr> => (ocr ??= await createOcr({ workers: 1 }));
const load = async (name: CorpusName): Promise<DocData[]> => {
  const out: DocData[] = [];
  for (const doc of loadCorpus(name)) out.push({ doc, read: await documentLines(doc, getOcr, useCache) });
  return out;
};
const own = await load('own');
const shared = await load('shared');
// The procedural generator's documents (scripts/procedural/document-lines.ts), from seeds the tests never draw
// (they draw 1-80): layouts and wordings the own corpus does not have, an insurer no register holds.
const PROCEDURAL_SEEDS = Number(process.argv.find((a) => a.startsWith('--procedural='))?.slice(13) ?? 0);
const procedural: DocData[] = POLICY_KINDS.flatMap((kind) =>
  Array.from({ length: PROCEDURAL_SEEDS }, (_, k) => {
    const g = policyDocument(10_001 + k, kind);
    const doc: CorpusDoc = {
      corpus: 'own',
      id: `procedural-${kind}-${10_001 + k}`,
      country: g.country,
      type: g.truth.insurance_type,
      scanned: g.ocr,
      group: kind,
      truth: g.truth,
      pdfPath: '',
    };
    return {
      doc,
      read: { lines: g.lines, pages: 1, ocrPages: 0, ms: 0, cached: true, ...(g.ocr ? { ocrConfidence: 0.85 } : {}) } as ReadLines,
    };
  }),
);
// Procedural PDFs with their technicalities, in the folders the eval uses (.cache/procedural/), read once and cached.
const PDF_COUNT = Number(process.argv.find((a) => a.startsWith('--procedural-pdfs='))?.slice(18) ?? 0);
const loadPdfs = async (split: Split, count: number): Promise<DocData[]> => {
  const dir = fileURLToPath(new URL(`../.cache/procedural/${split}-1-${count}/`, import.meta.url));
  await writeProceduralCorpus(dir, seedsOf(split, count));
  const out: DocData[] = [];
  for (const doc of loadProceduralCorpus(dir))
    out.push({
      doc,
      read: await documentLines(doc, getOcr, true).catch(() => ({ lines: [], pages: 1, ocrPages: 0, ms: 0, cached: false })),
    });
  return out;
};
const pdfTrain = PDF_COUNT ? await loadPdfs('train', PDF_COUNT) : [];
const pdfValidation = PDF_COUNT ? await loadPdfs('validation', 200) : [];
if (ocr) await (ocr as Ocr).terminate();

const fmt = (r: { text: number; scan: number; high: number; highN: number }): string =>
  `text ${r.text.toFixed(1)}%, scan ${r.scan.toFixed(1)}%, right at confidence >= 0.9: ${r.high.toFixed(1)}% of ${r.highN}`;
console.log(`prior weights only: own ${fmt(evaluate(own, matcher, { ...priorModel(), calibration: [] }))}`);
if (shared.length)
  console.log(`prior weights only: outside documents ${fmt(evaluate(shared, matcher, { ...priorModel(), calibration: [] }))}`);
if (pdfValidation.length)
  console.log(
    `prior weights only: procedural PDFs (validation) ${fmt(evaluate(pdfValidation, matcher, { ...priorModel(), calibration: [] }))}`,
  );
// Documents that are no policy train nothing: no field is returned from them (document-type.ts), and their
// labelled plates and numbers would teach the ranker that a labelled value is a wrong one. Beside the procedural
// PDFs the own corpus counts twice: counted once, the generator's harder documents pull its confidences down
// (518 own values at >= 0.9 instead of 532, 99.6% of them right).
const model = train([...(pdfTrain.length ? [...own, ...own] : own), ...procedural, ...pdfTrain.filter((d) => !d.doc.negative)], matcher);
const trainedOn = procedural.length || pdfTrain.length ? 'own and procedural' : 'own';
console.log(`trained on ${trainedOn} -> own (training data): ${fmt(evaluate(own, matcher, model))}`);
const validation: DocData[] = POLICY_KINDS.flatMap((kind) =>
  Array.from({ length: 80 }, (_, k) => {
    const g = policyDocument(1 + k, kind);
    return {
      doc: {
        corpus: 'own',
        id: `${kind}-${k + 1}`,
        country: g.country,
        type: g.truth.insurance_type,
        scanned: g.ocr,
        group: kind,
        truth: g.truth,
        pdfPath: '',
      },
      read: { lines: g.lines, pages: 1, ocrPages: 0, ms: 0, cached: true, ...(g.ocr ? { ocrConfidence: 0.85 } : {}) } as ReadLines,
    };
  }),
);
console.log(`procedural validation (the tests' seeds): ${fmt(evaluate(validation, matcher, model))}`);
if (pdfValidation.length) {
  console.log(`shipped model -> procedural PDFs (validation): ${fmt(evaluate(pdfValidation, matcher, SHIPPED_MODEL))}`);
  console.log(`trained on ${trainedOn} -> procedural PDFs (validation): ${fmt(evaluate(pdfValidation, matcher, model))}`);
}
if (shared.length) {
  console.log(`trained on ${trainedOn} -> outside documents:   ${fmt(evaluate(shared, matcher, model))}`);
  const reverse = train(shared, matcher);
  console.log(`trained on outside documents -> own:   ${fmt(evaluate(own, matcher, reverse))}  (reported only; not written)`);
}
if (!dryRun) {
  writeFileSync(OUT, `${JSON.stringify(model, null, 1)}\n`);
  console.log(`wrote ${OUT}`);
}
