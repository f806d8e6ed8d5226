// Moved to extraction-port.ts; kept only until context.ts imports it from there (then delete this file).
export type { ExtractionOutcome, Extractor } from './extraction-port.js';
