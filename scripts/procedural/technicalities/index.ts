/**
 * Real-world PDF technicalities, each a function from a drawing or PDF bytes to PDF bytes (or image bytes), so a
 * generator can apply any of them to any document it draws.
 */
export { drawPlain, textWidth, type Control, type Drawing, type DrawnPage, type DrawnText } from './drawing.js';
export { drawWithLyingFont, LIES, type Lie, type LieScope } from './lying-fonts.js';
export { drawAsFillableForm, flattenForm, type FillableFormOptions } from './fillable-form.js';
export { turnPages, type Turn } from './turned-pages.js';
export { encryptWithOwnerPassword, type Cipher } from './owner-password.js';
export { asImageFile, asScannedPdf, asScanWithOcrLayer, encodeImage, imagesAsPdf, pngBomb, scanPages, type ScanOptions } from './scans.js';
export { letterSpaceLabels, type LetterSpacing } from './letter-spaced.js';
export { drawAsOutlines } from './outlines.js';
export { drawStyled, type FontFamily, type PrintStyle } from './styled-fonts.js';
