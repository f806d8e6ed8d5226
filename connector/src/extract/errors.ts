/** The extractor's one error class: why a document could not be read, as a closed list of codes. */

/**
 * - `corrupt_pdf`: not a PDF, or too damaged for pdf.js to find or draw its pages (wrong file type,
 *   truncated upload, a page tree that loops, a page the canvas cannot be made for).
 * - `encrypted_pdf`: password protected; we never guess passwords, the user must upload an unlocked copy.
 * - `no_readable_text`: the PDF opened but neither its text layer nor OCR produced usable text (blank or photo pages).
 * - `too_many_pages`: more pages than the extractor reads (a policy is a few pages; this bounds the work per upload).
 * - `over_limit`: the document crosses another limit of the per-document budget (limits.ts): page size,
 *   rendered pixels, image size, decoded stream bytes, time or memory. Its message names the limit and the value.
 */
export type ExtractErrorCode = 'corrupt_pdf' | 'encrypted_pdf' | 'no_readable_text' | 'too_many_pages' | 'over_limit';

/** User-facing wording per code; `message` (internal) may carry pdf.js details and is only for logs. */
export const EXTRACT_ERROR_MESSAGES: Record<ExtractErrorCode, string> = {
  corrupt_pdf: 'The file is not a readable PDF. Upload the original PDF, not a photo or a renamed file.',
  encrypted_pdf: 'The PDF is password protected. Upload a copy without a password.',
  no_readable_text: 'No text could be read from the PDF. Upload a clearer copy or the original document.',
  too_many_pages: 'The PDF has too many pages. Upload only the policy schedule or certificate.',
  over_limit: 'The PDF is larger than the extractor reads. Upload only the policy schedule or certificate.',
};

/** Raised by the extraction pipeline; plain data (`code`, `message`, `publicMessage`) so it survives a worker-thread or process boundary. */
export class ExtractError extends Error {
  readonly code: ExtractErrorCode;
  readonly publicMessage: string;

  /** `publicMessage` replaces the code's wording where the case has more to say (which limit, which value). */
  constructor(code: ExtractErrorCode, internal?: string, options?: { cause?: unknown; publicMessage?: string }) {
    super(internal ?? options?.publicMessage ?? EXTRACT_ERROR_MESSAGES[code], options);
    this.name = 'ExtractError';
    this.code = code;
    this.publicMessage = options?.publicMessage ?? EXTRACT_ERROR_MESSAGES[code];
  }
}

/** True for an ExtractError, also one rebuilt from a structured-clone copy (a worker's rejection). */
export function isExtractError(err: unknown): err is ExtractError {
  return (
    err instanceof ExtractError ||
    (typeof err === 'object' &&
      err !== null &&
      (err as { name?: unknown }).name === 'ExtractError' &&
      typeof (err as { code?: unknown }).code === 'string')
  );
}

/** An ExtractError as plain data for a thread or process boundary, and back. */
export interface ExtractErrorData {
  code: string;
  message: string;
  publicMessage: string;
}
export function toErrorData(err: ExtractError): ExtractErrorData {
  return { code: err.code, message: err.message, publicMessage: err.publicMessage };
}
export function fromErrorData(data: ExtractErrorData): ExtractError {
  return new ExtractError(data.code as ExtractErrorCode, data.message, { publicMessage: data.publicMessage });
}
