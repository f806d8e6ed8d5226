/** Policy-document extraction: PDF text layer or OCR -> ExtractedFields, in-process, on a worker-thread pool, or on that pool in a child process. */
export { extractFields, type ExtractDeps, type ExtractOptions, type ExtractResult } from './pipeline.js';
export { ExtractError, EXTRACT_ERROR_MESSAGES, isExtractError, type ExtractErrorCode } from './errors.js';
export { createOcr, type Ocr, type OcrOptions, type OcrResult } from './ocr.js';
export { extractFieldsFromLines, guessLanguage, inferType, type InsurerMatcher, type FieldsResult, type Language } from './fields.js';
export { matcherFromIndex, matcherFromRows, loadShippedRegisterRows } from './matcher.js';
export { createThreadPool, ExtractionQueueFullError, type ExtractionPool, type ExtractionPoolOptions } from './pool.js';
export { createProcessExtractionPool, ExtractionProcessError, type ProcessExtractionPool, type ProcessPoolOptions } from './process-pool.js';
export type { ExtractLimits } from './limits.js';
export { OCR_TEXT_THRESHOLD, OCR_DPI } from './render.js';
export { poolExtractor, createConnectorExtraction } from './as-extractor.js';
