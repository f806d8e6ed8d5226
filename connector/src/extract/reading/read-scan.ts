/** Reads a scanned page by OCR the right way up: one pass for an upright page, more only for a page on its side or upside down. */
import type { Ocr, OcrResult, RecognizeOptions } from './ocr.js';
import { halve, rotate, toPgm, type GreyImage, type QuarterTurn } from './scan-image.js';

/**
 * Below this mean word confidence a page may be upside down. Upright scans read at 0.86-0.95 (the
 * shared documents' faxes, photos and office scans, and the corpus), upside-down ones at 0.57.
 */
export const LOW_CONFIDENCE = 0.75;
/** A page with at least this share of its longer words taller than wide lies on its side. */
const SIDEWAYS = 0.5;
/** A reading with fewer words than this is a blank or nearly blank page: turning it finds no more. */
const MIN_WORDS = 5;

export interface ScanReading extends OcrResult {
  /** Clockwise quarter turns the page was read at. */
  turned: QuarterTurn;
  /** OCR passes spent on the page (a half-size probe counts as one). */
  passes: number;
}

/**
 * Reads `image`. The first pass is always at the page as drawn; an upright page stops there, and so does one with next to no words. A page on
 * its side (most words taller than wide) is turned: tesseract reads text running downwards the page
 * with confidence and text running upwards without, so a confident sideways reading means a quarter
 * turn anticlockwise and a doubtful one a quarter turn clockwise. A reading still below
 * LOW_CONFIDENCE is checked against the page half a turn round, first on a half-size image (a
 * quarter of the pixels), and read in full that way only when the probe reads better than the page
 * did. `mayRead(pixels)` is asked before every pass after the first, so the document's pixel
 * budget bounds OCR work as well as rendering: without room, the best reading so far stands. `how` says how the
 * image was taken (a photo), for the OCR's binarisation.
 */
export async function readScan(
  image: GreyImage,
  ocr: Ocr,
  mayRead: (pixels: number) => boolean = () => true,
  how: RecognizeOptions = {},
): Promise<ScanReading> {
  const pixels = image.width * image.height;
  let best: ScanReading = { ...(await ocr.recognize(toPgm(image), how)), turned: 0, passes: 1 };
  if ((best.words ?? best.lines.length) < MIN_WORDS) return best;
  const read = async (turned: QuarterTurn): Promise<void> => {
    const result = await ocr.recognize(toPgm(rotate(image, turned)), how);
    const passes = best.passes + 1;
    best = score(result) > score(best) ? { ...result, turned, passes } : { ...best, passes };
  };
  if ((best.sideways ?? 0) >= SIDEWAYS && mayRead(pixels)) await read(best.confidence >= LOW_CONFIDENCE ? 270 : 90);
  if (best.confidence < LOW_CONFIDENCE) {
    const opposite = ((best.turned + 180) % 360) as QuarterTurn;
    if (!mayRead(pixels / 4)) return best;
    const probe = await ocr.recognize(toPgm(halve(rotate(image, opposite))), how);
    best = { ...best, passes: best.passes + 1 };
    if (probe.confidence > best.confidence && mayRead(pixels)) await read(opposite);
  }
  return best;
}

/**
 * How much a reading read: the confidence of its words summed, so that neither many doubtful words
 * nor a few sure ones win alone. A sideways reading scores nothing: its words are right but its
 * lines are columns.
 */
function score(r: OcrResult): number {
  if ((r.sideways ?? 0) >= SIDEWAYS) return 0;
  return r.confidence * (r.words ?? r.lines.length);
}
