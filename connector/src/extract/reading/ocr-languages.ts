/**
 * Tesseract's language string for every language pack, so documents of any supported language are
 * read. A module of its own: the pool imports it without loading tesseract.js into its process.
 */
import { ALL_LANGUAGE_PACKS } from '../../../../shared/packs/languages/index.js';

export const OCR_LANGUAGES = ALL_LANGUAGE_PACKS.map((p) => p.tesseract).join('+');
