/**
 * The budget one document may spend in the extractor (docs/document-limits.md). Each limit is checked
 * before the step it pays for; a document over any of them is refused at once with a message naming
 * the limit and the document's value. The numbers are configuration (config.ts, COVERCHECK_EXTRACT_*).
 */
import { ExtractError } from './errors.js';

export interface ExtractLimits {
  /** Pages per document. */
  maxPages: number;
  /** Area of one page in pt² (1 pt = 1/72 inch), after its UserUnit. */
  maxPageAreaPt2: number;
  /** Area of all pages together, in pt². */
  maxTotalAreaPt2: number;
  /** Pixels of one page rendered for OCR: above it the page is rendered at a lower resolution. */
  maxPagePixels: number;
  /** Pixels rendered for OCR over the whole document. */
  maxTotalPixels: number;
  /** Pixels of one image in the document (width x height as its dictionary states them). */
  maxImagePixels: number;
  /** Pixels of all the document's images together. */
  maxTotalImagePixels: number;
  /** Bytes the document's compressed streams other than images (page contents, fonts, forms) decode to, all together. */
  maxStreamBytes: number;
  /**
   * Processor time the document's thread may spend on it (pdf.js parsing and drawing; OCR runs in
   * tesseract's own thread and is bounded by the pixel limits). Processor time, not wall time: the
   * extraction process runs at the lowest priority (priority.ts) and waits while anything else
   * runs, and that wait is not the document's.
   */
  cpuMs: number;
  /** Wall time for one document from the moment a thread starts it: the backstop for one that hangs without using the processor. */
  wallMs: number;
  /** Resident memory of the extraction process; above it the process is ended. */
  memoryMb: number;
}

const int = new Intl.NumberFormat('en-GB', { maximumFractionDigits: 0 });
const one = new Intl.NumberFormat('en-GB', { maximumFractionDigits: 1 });

/** 25,000,000 -> "25 million"; 1,500 -> "1,500". */
export function count(n: number): string {
  return n >= 1e6 ? `${one.format(n / 1e6)} million` : int.format(n);
}
export function mb(bytes: number): string {
  return `${int.format(bytes / (1024 * 1024))} MB`;
}

/** The refusal for a crossed limit: its text is both the job's error message and the log line. */
export function overLimit(message: string): ExtractError {
  return new ExtractError('over_limit', message, { publicMessage: message });
}

export function overCpu(limits: Pick<ExtractLimits, 'cpuMs'>): ExtractError {
  return overLimit(`Reading the PDF took more than ${limits.cpuMs / 1000} s of processor time, the limit per document.`);
}
export function overWall(limits: Pick<ExtractLimits, 'wallMs'>): ExtractError {
  return overLimit(`Reading the PDF took longer than ${limits.wallMs / 1000} s, the limit per document.`);
}

/** `limitMb`: the limit the document crossed (the process's, or a thread's heap). */
export function overMemory(limitMb: number): ExtractError {
  return overLimit(`Reading the PDF needed more than ${limitMb} MB of memory, the extractor's limit.`);
}
