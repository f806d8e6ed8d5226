/** Piscina worker: one OCR instance and one insurer matcher per thread, created on first use and reused. */
import { isMainThread, workerData } from 'node:worker_threads';
import type { InsurerRecord } from '../store/types.js';
import { isExtractError } from './errors.js';
import { matcherFromRows } from './matcher.js';
import { createOcr, type Ocr } from './ocr.js';
import { extractFields, type ExtractDeps, type ExtractResult } from './pipeline.js';
import { lowerThreadPriority } from './priority.js';

export { EXTRACTION_NICE } from './priority.js';

/** What the pool passes each thread through workerData. */
export interface ExtractWorkerData {
  rows: InsurerRecord[];
  ocrWorkers: number;
  languages: string;
}

/** A task's outcome, as plain data: a thrown ExtractError would lose its class and code crossing the thread boundary. */
export type ExtractTaskResult = { ok: true; result: ExtractResult } | { ok: false; code: string; message: string };

// Also when this pool runs inside the connector's process rather than the extraction process
// (the pool tests run it directly): the thread and the tesseract threads it starts still yield.
// Only as a pool thread: importing this module elsewhere (for its types) must not slow the importer down.
if (!isMainThread) lowerThreadPriority();

let deps: Promise<ExtractDeps> | null = null;

function getDeps(): Promise<ExtractDeps> {
  if (!deps) {
    const data = workerData as ExtractWorkerData;
    // OCR starts on the first page that needs it: text PDFs never pay its ~1 s start or its memory.
    let real: Promise<Ocr> | null = null;
    const ocr: Ocr = {
      recognize: (image) => (real ??= createOcr({ workers: data.ocrWorkers, languages: data.languages })).then((o) => o.recognize(image)),
      terminate: async () => {
        if (real) await (await real).terminate();
      },
    };
    deps = Promise.resolve({ matcher: matcherFromRows(data.rows), ocr });
  }
  return deps;
}

/** Piscina calls the default export with the task: the PDF bytes. */
export default async function run(pdf: Uint8Array): Promise<ExtractTaskResult> {
  try {
    return { ok: true, result: await extractFields(pdf, await getDeps()) };
  } catch (err) {
    if (isExtractError(err)) return { ok: false, code: err.code, message: err.message };
    throw err;
  }
}
