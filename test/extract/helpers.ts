/** Test helpers for the extractor: text lines from strings, the shipped-register matcher, corpus files. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CELL_GAP, type Line } from '../../connector/src/extract/reading/lines.js';
import { loadShippedRegisterRows, matcherFromRows } from '../../connector/src/extract/fields/insurer-matcher.js';
import type { InsurerMatcher } from '../../connector/src/extract/fields/document-fields.js';
import type { InsurerRecord } from '../../connector/src/store/types.js';

export const CORPUS_DIR = fileURLToPath(new URL('../fixtures/policies/', import.meta.url));
export const REGISTER_DIR = fileURLToPath(new URL('../../connector/data/register/', import.meta.url));

/** One Line per string; three spaces separate cells, each cell 200 units to the right of the previous. */
export function lines(...texts: string[]): Line[] {
  return texts.map((t) => {
    const cells = t.split(CELL_GAP).map((text, i) => ({ x: 60 + 200 * i, text: text.trim() }));
    return { text: cells.map((c) => c.text).join(CELL_GAP), cells };
  });
}

let rows: Promise<InsurerRecord[]> | null = null;
/** The shipped register rows, parsed once per test file. */
export function registerRows(): Promise<InsurerRecord[]> {
  return (rows ??= loadShippedRegisterRows(REGISTER_DIR, '2026-03-01T00:00:00.000Z'));
}
export async function shippedMatcher(): Promise<InsurerMatcher> {
  return matcherFromRows(await registerRows());
}

export function corpusPdf(id: string): Buffer {
  return readFileSync(`${CORPUS_DIR}${id}.pdf`);
}
export function corpusTruth(id: string): Record<string, string> {
  return JSON.parse(readFileSync(`${CORPUS_DIR}${id}.json`, 'utf8')) as Record<string, string>;
}

/**
 * A hand-made password-protected PDF: a Standard security handler whose /U does not match the
 * empty user password, so pdf.js raises PasswordException (no tool here can encrypt one).
 */
export function encryptedPdf(): Buffer {
  const hex32 = 'a1'.repeat(32);
  return Buffer.from(
    [
      '%PDF-1.4',
      '1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj',
      '2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj',
      '3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >> endobj',
      `4 0 obj << /Filter /Standard /V 1 /R 2 /O <${hex32}> /U <${hex32}> /P -4 >> endobj`,
      'trailer << /Root 1 0 R /Size 5 /Encrypt 4 0 R /ID [<00112233445566778899aabbccddeeff> <00112233445566778899aabbccddeeff>] >>',
      '%%EOF',
    ].join('\n'),
    'latin1',
  );
}
