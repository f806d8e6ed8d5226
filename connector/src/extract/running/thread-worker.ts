/** Piscina worker: one OCR instance and one insurer matcher per thread, created on first use and reused. */
import { isMainThread, workerData, type MessagePort } from 'node:worker_threads';
import type { InsurerRecord } from '../../store/types.js';
import { isExtractError, toErrorData, type ExtractErrorData } from '../errors.js';
import type { ExtractLimits } from '../limits.js';
import { matcherFromRows } from '../fields/insurer-matcher.js';
import { createOcr, type Ocr } from '../reading/ocr.js';
import { extractFields, type ExtractDeps, type ExtractResult } from '../pipeline.js';
import { currentThreadId, lowerThreadPriority, type ExtractionPriority } from './priority.js';

export { EXTRACTION_NICE } from './priority.js';

/** What the pool passes each thread through workerData. */
export interface ExtractWorkerData {
  rows: InsurerRecord[];
  ocrWorkers: number;
  languages: string;
  limits: ExtractLimits;
  priority: ExtractionPriority;
}

/** A task's outcome, as plain data: a thrown ExtractError would lose its class and code crossing the thread boundary. */
export type ExtractTaskResult = { ok: true; result: ExtractResult } | { ok: false; error: ExtractErrorData };

// Also when this pool runs inside the connector's process rather than the extraction process
// (the pool tests run it directly): the thread and the tesseract threads it starts still yield.
// Only as a pool thread: importing this module elsewhere (for its types) must not slow the importer down.
if (!isMainThread && (workerData as ExtractWorkerData | null)?.priority !== 'normal') lowerThreadPriority();

let deps: Promise<ExtractDeps> | null = null;

function getDeps(): Promise<ExtractDeps> {
  if (!deps) {
    const data = workerData as ExtractWorkerData;
    // OCR starts on the first page that needs it: text PDFs never pay its ~1 s start or its memory.
    let real: Promise<Ocr> | null = null;
    const ocr: Ocr = {
      recognize: (image, options) =>
        (real ??= createOcr({ workers: data.ocrWorkers, languages: data.languages })).then((o) => o.recognize(image, options)),
      terminate: async () => {
        if (real) await (await real).terminate();
      },
    };
    deps = Promise.resolve({ matcher: matcherFromRows(data.rows), ocr });
  }
  return deps;
}

/**
 * A task: the PDF bytes, and a port told when this thread starts on them, with the thread's Linux
 * id (null elsewhere) so the pool can read its processor time. The time limits count from there,
 * not from the thread's start-up.
 */
export interface ExtractTask {
  pdf: Uint8Array;
  started: MessagePort;
}

/** Piscina calls the default export with the task. */
export default async function run({ pdf, started }: ExtractTask): Promise<ExtractTaskResult> {
  started.postMessage(currentThreadId());
  started.close();
  try {
    return { ok: true, result: await extractFields(pdf, await getDeps(), { limits: (workerData as ExtractWorkerData).limits }) };
  } catch (err) {
    if (isExtractError(err)) return { ok: false, error: toErrorData(err) };
    throw err;
  }
}
