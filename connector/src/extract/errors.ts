/** The extractor's one error class: why a document could not be read, as a closed list of codes. */

/**
 * - `corrupt_pdf`: not a PDF, or too damaged for pdf.js to find its pages (wrong file type, truncated upload).
 * - `encrypted_pdf`: password protected; we never guess passwords, the user must upload an unlocked copy.
 * - `no_readable_text`: the PDF opened but neither its text layer nor OCR produced usable text (blank or photo pages).
 * - `too_many_pages`: more pages than the extractor reads (a policy is a few pages; this bounds the work per upload).
 */
export type ExtractErrorCode = 'corrupt_pdf' | 'encrypted_pdf' | 'no_readable_text' | 'too_many_pages';

/** User-facing wording per code; `message` (internal) may carry pdf.js details and is only for logs. */
export const EXTRACT_ERROR_MESSAGES: Record<ExtractErrorCode, string> = {
  corrupt_pdf: 'The file is not a readable PDF. Upload the original PDF, not a photo or a renamed file.',
  encrypted_pdf: 'The PDF is password protected. Upload a copy without a password.',
  no_readable_text: 'No text could be read from the PDF. Upload a clearer copy or the original document.',
  too_many_pages: 'The PDF has too many pages. Upload only the policy schedule or certificate.',
};

/** Raised by the extraction pipeline; plain data (`code`, `message`) so it survives a worker-thread boundary. */
export class ExtractError extends Error {
  readonly code: ExtractErrorCode;
  readonly publicMessage: string;

  constructor(code: ExtractErrorCode, internal?: string, options?: { cause?: unknown }) {
    super(internal ?? EXTRACT_ERROR_MESSAGES[code], options);
    this.name = 'ExtractError';
    this.code = code;
    this.publicMessage = EXTRACT_ERROR_MESSAGES[code];
  }
}

/** True for an ExtractError, also one rebuilt from a structured-clone copy (a worker's rejection). */
export function isExtractError(err: unknown): err is ExtractError {
  return err instanceof ExtractError || (typeof err === 'object' && err !== null && (err as { name?: unknown }).name === 'ExtractError' && typeof (err as { code?: unknown }).code === 'string');
}
