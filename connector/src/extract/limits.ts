/**
 * The budget one document may spend in the extractor (docs/document-limits.md). Each limit is checked
 * before the step it pays for; a document over any of them is refused at once with a message naming
 * the limit and the document's value. The numbers are configuration (config.ts, COVERCHECK_EXTRACT_*).
 */
import type { ExtractLimits } from '../config.js';
import { ExtractError } from './errors.js';

// Declared beside the rest of the configuration (config.ts), so config.ts imports nothing from extract/.
export type { ExtractLimits };

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
