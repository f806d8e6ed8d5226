/**
 * Policy numbers as printed, from cells Sheets may have typed. Sheets turns typed digits into a
 * number (a double: leading zeros gone, digits past the 15th unreliable, shown as 1.23457E+18)
 * and date-like text into a Date. The printed number is the cell's displayed text
 * (Range.getDisplayValues); a custom function gets only the value ("Custom Functions in Google
 * Sheets", data types), so there a number is taken only when it can be the number as printed.
 * Anything else is an error that asks for a plain-text column, and is never sent to be charged.
 */

/** What the user does about it, in every such error. */
export const PLAIN_TEXT_ADVICE = 'format the policy number column as plain text (Format > Number > Plain text) and type the numbers again';

/** Integers Sheets holds digit for digit: at most 15 digits. */
const MAX_EXACT = 1e15;

export type IdentifierText = { ok: true; text: string } | { ok: false; error: string };

/**
 * The policy number of a cell: its value (getValues, or a custom function's argument) and, when
 * read from the sheet, the text it shows (getDisplayValues).
 */
export function identifierText(value: unknown, shown?: string): IdentifierText {
  if (value instanceof Date) {
    return { ok: false, error: `Sheets turned this policy number into a date${shown ? ` (${shown})` : ''}: ${PLAIN_TEXT_ADVICE}.` };
  }
  if (typeof value === 'number') {
    if (!Number.isInteger(value) || value < 0 || value >= MAX_EXACT) {
      return {
        ok: false,
        error: `Sheets holds this policy number as a number (${shown || String(value)}), which is not the number as printed: ${PLAIN_TEXT_ADVICE}.`,
      };
    }
    // A number format may show what the value lost (leading zeros): the digits shown are the number.
    return { ok: true, text: shown && /^\d+$/.test(shown.trim()) ? shown.trim() : String(value) };
  }
  if (value === null || value === undefined) return { ok: true, text: '' };
  return { ok: true, text: (shown ?? String(value)).trim() };
}
