/**
 * Watches the job queue's extractor from outside: times each document and counts the refused ones by
 * reason, and keeps what readiness asks of the extraction process. The process starts on the first
 * document and ends when idle, so a probe cannot ask it anything without starting it; what shows it
 * broken is a document it could not run (it could not start, or kept ending: ExtractionProcessError)
 * with no document run since. Typed by shape, so that this folder imports nothing of the job queue.
 */

type Outcome = { ok: true } | { ok: false; code: string };

export interface ExtractorLike<O extends Outcome> {
  extract(pdf: Buffer): Promise<O>;
  busy(): boolean;
}

export interface ExtractionRecorder {
  /** One document: `read`, `refused` (with the reason code) or `error` (thrown: retried by the queue). */
  document(outcome: 'read' | 'refused' | 'error', seconds: number, reason?: string): void;
}

export interface ExtractionHealth {
  /** Null while the process runs documents; else why it does not. */
  problem(): string | null;
}

/** The extraction process failed the document itself, through no fault of the document (extract/running/process-pool.ts). */
const isProcessFailure = (err: unknown) => (err as { name?: unknown } | null)?.name === 'ExtractionProcessError';

export function watchExtractor<O extends Outcome>(
  inner: ExtractorLike<O>,
  record: ExtractionRecorder,
): { extractor: ExtractorLike<O>; health: ExtractionHealth } {
  let problem: string | null = null;
  const extractor: ExtractorLike<O> = {
    busy: () => inner.busy(),
    async extract(pdf: Buffer): Promise<O> {
      const started = performance.now();
      const seconds = () => (performance.now() - started) / 1000;
      try {
        const out = await inner.extract(pdf);
        problem = null;
        if (out.ok) record.document('read', seconds());
        else record.document('refused', seconds(), out.code);
        return out;
      } catch (err) {
        if (isProcessFailure(err)) problem = `the extraction process failed the last document: ${(err as Error).message}`;
        record.document('error', seconds());
        throw err;
      }
    },
  };
  return { extractor, health: { problem: () => problem } };
}
