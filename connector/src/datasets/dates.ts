/** Turns the date forms found in public series into ISO dates (YYYY-MM-DD). */

const DAY = /^(\d{4})-(\d{2})-(\d{2})(?:[T ].*)?$/;
const MONTH = /^(\d{4})-(\d{2})$/;
const QUARTER = /^(\d{4})-?Q([1-4])$/i;

/**
 * Full dates are kept as they are; period labels become the first day of the period
 * (`1988-01` -> 1988-01-01, `1955-Q1` -> 1955-01-01). Null for anything else.
 */
export function toIsoDate(raw: string): string | null {
  const s = raw.trim();
  let m = DAY.exec(s);
  if (m) return validDate(Number(m[1]), Number(m[2]), Number(m[3]));
  m = MONTH.exec(s);
  if (m) return validDate(Number(m[1]), Number(m[2]), 1);
  m = QUARTER.exec(s);
  if (m) return validDate(Number(m[1]), (Number(m[2]) - 1) * 3 + 1, 1);
  return null;
}

function validDate(y: number, mo: number, d: number): string | null {
  const t = new Date(Date.UTC(y, mo - 1, d));
  if (t.getUTCFullYear() !== y || t.getUTCMonth() !== mo - 1 || t.getUTCDate() !== d) return null;
  return `${String(y).padStart(4, '0')}-${String(mo).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

/** Last day of the month of an ISO date. */
export function monthEnd(iso: string): string {
  const [y, m] = iso.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
}
