/**
 * What a cell holds once text is put in it, and what it shows: the Sheets UI's typing of numbers
 * and dates, the spreadsheet's time zone, and Utilities.formatDate's patterns. Used by
 * spreadsheet.ts (setValues, getValues, getDisplayValues) and utilities.ts (formatDate).
 *
 * Sources:
 * - reference/spreadsheet/range#setValue(s): "The value can be numeric, string, boolean or date";
 *   a string is entered as a user would enter it, the Sheets API's ValueInputOption USER_ENTERED:
 *   "The values will be parsed as if the user typed them into the UI. Numbers will stay as numbers,
 *   but strings may be converted to numbers, dates, etc. following the same rules that are applied
 *   when entering text into a cell via the Google Sheets UI."
 * - Sheets API ExtendedValue.numberValue, "Represents a double value": a typed number is an IEEE 754
 *   double, so "00123" is 123 and 1234567890123456789 is 1234567890123456768.
 * - reference/spreadsheet/spreadsheet#getSpreadsheetTimeZone; Sheets API SpreadsheetProperties.timeZone,
 *   "The time zone of the spreadsheet, in CLDR format such as America/New_York": a typed date is that
 *   day's midnight in the spreadsheet's zone, not the script's.
 * - reference/spreadsheet/range#getValues: "The values may be of type Number, Boolean, Date, or
 *   String, depending on the value of the cell"; #getDisplayValues: "The displayed value takes into
 *   account date, time and currency formatting, including formats applied automatically by the
 *   spreadsheet's locale setting".
 * - Google Docs Editors Help, "Format numbers in a spreadsheet": Format > Number > Plain text keeps
 *   what is typed as text (number format "@"); a leading apostrophe does the same for one entry.
 * - reference/utilities/utilities#formatDate(date, timeZone, format): "Formats date according to
 *   specification described in Java SE SimpleDateFormat class."
 *
 * Modelled types: numbers (digits with an optional sign and decimals) and dates (ISO yyyy-mm-dd or
 * yyyy/mm/dd in every locale; M/d/yyyy in en_US, d/M/yyyy in en_GB and fr_FR, d.M.yyyy in de_DE).
 * Percentages, currencies, times, booleans and formulas are not: such text stays text.
 */
import { GasError } from './runtime.js';

type V = any;

/** The number format Format > Number > Plain text sets. */
export const PLAIN_TEXT = '@';

/** Throws as Apps Script does for a zone it does not know. */
export function checkTimeZone(tz: unknown): string {
  try {
    if (typeof tz !== 'string' || tz === '') throw new RangeError();
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return tz;
  } catch {
    throw new GasError(`Invalid argument: timeZone ${String(tz)}`);
  }
}

interface Parts {
  y: number;
  M: number;
  d: number;
  H: number;
  m: number;
  s: number;
}

/** The wall-clock fields of instant `ms` in zone `tz`. */
export function zonedParts(ms: number, tz: string): Parts {
  const f = new Intl.DateTimeFormat('en-US', {
    timeZone: tz,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  });
  const p = Object.fromEntries(f.formatToParts(new Date(ms)).map((x) => [x.type, x.value]));
  return { y: Number(p.year), M: Number(p.month), d: Number(p.day), H: Number(p.hour), m: Number(p.minute), s: Number(p.second) };
}

/** The instant of midnight starting day y-M-d in zone `tz`. */
export function zonedMidnight(y: number, M: number, d: number, tz: string): number {
  const wall = Date.UTC(y, M - 1, d);
  const offset = (at: number) => {
    const p = zonedParts(at, tz);
    return Date.UTC(p.y, p.M - 1, p.d, p.H, p.m, p.s) - Math.floor(at / 1000) * 1000;
  };
  const guess = wall - offset(wall);
  return wall - offset(guess);
}

const pad = (n: number, w: number) => String(n).padStart(w, '0');

/**
 * SimpleDateFormat, the letters the add-on and the display patterns use: y, M, d, H, m, s and
 * quoted literals. Any other letter throws, so a new pattern is noticed and modelled.
 */
export function formatInZone(ms: number, tz: string, pattern: string): string {
  const p = zonedParts(ms, tz);
  let out = '';
  for (let i = 0; i < pattern.length;) {
    const c = pattern[i]!;
    if (c === "'") {
      const end = pattern.indexOf("'", i + 1);
      if (end < 0) throw new GasError(`Illegal pattern: unterminated quote in ${pattern}`);
      out += end === i + 1 ? "'" : pattern.slice(i + 1, end);
      i = end + 1;
      continue;
    }
    if (!/[A-Za-z]/.test(c)) {
      out += c;
      i++;
      continue;
    }
    let n = 1;
    while (pattern[i + n] === c) n++;
    i += n;
    const field: Record<string, number> = { y: p.y, M: p.M, d: p.d, H: p.H, m: p.m, s: p.s };
    if (!(c in field)) throw new Error(`stand-in: SimpleDateFormat letter "${c}" is not modelled (pattern ${pattern})`);
    out += c === 'y' && n === 2 ? pad(p.y % 100, 2) : pad(field[c]!, n);
  }
  return out;
}

/** How a date typed in each locale is read (day-first or month-first) and then shown. */
const LOCALE_DATES: Record<string, { re: RegExp; order: 'dmy' | 'mdy'; shown: string }> = {
  en_US: { re: /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/, order: 'mdy', shown: 'M/d/yyyy' },
  en_GB: { re: /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/, order: 'dmy', shown: 'dd/MM/yyyy' },
  fr_FR: { re: /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/, order: 'dmy', shown: 'dd/MM/yyyy' },
  de_DE: { re: /^(\d{1,2})\.(\d{1,2})\.(\d{4})$/, order: 'dmy', shown: 'dd.MM.yyyy' },
};
/** The date-time pattern a Date written by a script is shown with, by locale. */
const LOCALE_DATETIME: Record<string, string> = {
  en_US: 'M/d/yyyy H:mm:ss',
  en_GB: 'dd/MM/yyyy HH:mm:ss',
  fr_FR: 'dd/MM/yyyy HH:mm:ss',
  de_DE: 'dd.MM.yyyy HH:mm:ss',
};

const validDay = (y: number, M: number, d: number) => M >= 1 && M <= 12 && d >= 1 && d <= new Date(Date.UTC(y, M, 0)).getUTCDate();

/** A typed cell: its value, and the number format Sheets applied with it (null: Automatic). */
export interface Typed {
  value: V;
  format: string | null;
}

/**
 * A value written with setValue(s), as the cell holds it: text is typed as in the UI (a number, a
 * date at the spreadsheet's midnight, else the text), unless the cell is formatted as plain text
 * or the text starts with an apostrophe. Numbers, booleans and Dates are kept as they are.
 */
export function typeValue(v: V, ctx: { locale: string; timeZone: string; format: string | null }): Typed {
  if (v instanceof Date) return { value: new Date(v.getTime()), format: ctx.format === PLAIN_TEXT ? null : ctx.format };
  if (typeof v !== 'string') return { value: v ?? '', format: ctx.format === PLAIN_TEXT ? PLAIN_TEXT : null };
  if (ctx.format === PLAIN_TEXT) return { value: v, format: PLAIN_TEXT };
  if (v.startsWith("'")) return { value: v.slice(1), format: null };
  if (/^[+-]?(\d+(\.\d*)?|\.\d+)$/.test(v)) return { value: Number(v), format: null };
  const iso = /^(\d{4})[-/](\d{1,2})[-/](\d{1,2})$/.exec(v);
  if (iso) {
    const [y, M, d] = [Number(iso[1]), Number(iso[2]), Number(iso[3])];
    if (validDay(y, M, d)) return { value: new Date(zonedMidnight(y, M, d, ctx.timeZone)), format: 'yyyy-MM-dd' };
  }
  const loc = LOCALE_DATES[ctx.locale];
  const m = loc?.re.exec(v);
  if (loc && m) {
    const [a, b, y] = [Number(m[1]), Number(m[2]), Number(m[3])];
    const [M, d] = loc.order === 'mdy' ? [a, b] : [b, a];
    if (validDay(y, M, d)) return { value: new Date(zonedMidnight(y, M, d, ctx.timeZone)), format: loc.shown };
  }
  return { value: v, format: null };
}

/**
 * The text a cell shows (getDisplayValues). Automatic format: an integer below 10^15 in full,
 * larger numbers in scientific notation with six significant digits (1.23457E+18), decimals with
 * the locale's separator; a Date by its format, in the spreadsheet's zone.
 */
export function displayValue(v: V, ctx: { locale: string; timeZone: string; format: string | null }): string {
  if (v === '' || v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return v ? 'TRUE' : 'FALSE';
  const comma = ctx.locale === 'de_DE' || ctx.locale === 'fr_FR';
  if (typeof v === 'number') {
    if (ctx.format === PLAIN_TEXT || (Number.isInteger(v) && Math.abs(v) < 1e15)) return String(v);
    if (Math.abs(v) >= 1e15) {
      const [mant, exp] = v.toExponential(5).split('e');
      const shown = `${String(Number(mant))}E${exp!.startsWith('-') ? '' : '+'}${exp!.replace('+', '')}`;
      return comma ? shown.replace('.', ',') : shown;
    }
    return comma ? String(v).replace('.', ',') : String(v);
  }
  if (v instanceof Date)
    return formatInZone(
      v.getTime(),
      ctx.timeZone,
      ctx.format && ctx.format !== PLAIN_TEXT ? ctx.format : (LOCALE_DATETIME[ctx.locale] ?? LOCALE_DATETIME.en_US!),
    );
  return String(v);
}
