/** Importer for the EIOPA Register of Insurance Undertakings CSV export (all EU/EEA insurers, by NCA). */
import { COUNTRIES, COUNTRY_PROFILES, type TCountry } from '../../../../shared/packs/index.js';
import type { InsurerRecord } from '../../store/types.js';
import { normaliseInsurerName } from '../normalise.js';
import { readCsv, requireColumns } from './csv.js';

/*
 * Format (see connector/data/register/SOURCES.md): semicolon-separated, every field double-quoted, a
 * trailing ";" on every line, 19 named columns, dates "dd/mm/yyyy hh:mm:ss". One row per undertaking
 * and per country it is registered for: a "Domestic undertaking" row at home, plus a row for each
 * country it serves cross-border ("EEA FPS", branches).
 *
 * How rows become records (one per country and reference):
 * - An undertaking whose home is DE, FR or GB (GB -> UK) gets a record in its home country under its
 *   home reference. Its domestic row decides name and authorisation when present; without one (a
 *   partial extract such as the shipped sample), its cross-border rows stand in: an undertaking can only
 *   passport while authorised at home, so any current cross-border row counts as authorised.
 * - An undertaking from elsewhere that serves DE, FR or UK cross-border gets a record in that country
 *   too, referenced as "<home>:<code>" (e.g. "IE:C12345"): codes are only unique within one home NCA.
 * - DE branch/FPS rows carry the BaFin number with a two-letter suffix ("5096ES"). The record uses the
 *   base number ("5096"); the raw codes are listed in source_detail, and the matcher's byReference
 *   finds the record from either form.
 */

const WHAT = 'EIOPA register CSV';

const COL = {
  intName: 'International Name',
  nca: 'Name of NCA',
  home: 'Home Country',
  code: 'Identification code',
  lei: 'LEI',
  official: 'Official name of the entity',
  crossBorder: 'Cross border status',
  operates: 'EU Country where the entity operates',
  local: 'Local/Commercial name',
  regEnd: 'Registration end date',
  opEnd: 'Operation End Date',
} as const;

/** Columns the importer reads; the export has 19, the others (address, website...) are not needed. */
export const EIOPA_REQUIRED_COLUMNS: readonly string[] = Object.values(COL);

/** The export's "Home Country" values -> our country, from each profile's EIOPA home codes. */
const COUNTRY_OF: Record<string, TCountry> = Object.fromEntries(
  COUNTRIES.flatMap((c) => COUNTRY_PROFILES[c].eiopa.homeCodes.map((h: string) => [h, c])),
);
/** Cross-border rows listed per record in source_detail before "and N more". */
const MAX_CODES_SHOWN = 5;

type Row = Record<string, string>;

interface Group {
  country: TCountry;
  reference: string;
  home: string;
  rows: Row[];
}

/** "dd/mm/yyyy hh:mm:ss" (time optional) -> epoch ms (UTC), or null when empty or malformed. */
function parseEiopaDate(value: string): number | null {
  const m = /^(\d{2})\/(\d{2})\/(\d{4})(?:\s+(\d{2}):(\d{2})(?::(\d{2}))?)?$/.exec(value.trim());
  if (!m) return null;
  const [, dd, mm, yyyy, hh = '0', mi = '0', ss = '0'] = m;
  return Date.UTC(Number(yyyy), Number(mm) - 1, Number(dd), Number(hh), Number(mi), Number(ss));
}

function isCurrent(row: Row, nowMs: number): boolean {
  for (const col of [COL.regEnd, COL.opEnd]) {
    const end = parseEiopaDate(row[col] ?? '');
    if (end !== null && end <= nowMs) return false;
  }
  return true;
}

function isDomestic(row: Row): boolean {
  const home = (row[COL.home] ?? '').toUpperCase();
  const op = (row[COL.operates] ?? '').toUpperCase();
  return op === '' || op === home || /^domestic/i.test(row[COL.crossBorder] ?? '');
}

/** The reference a home code is filed under: as the home country's profile says (DE: the BaFin number without its branch suffix). */
function baseCode(home: string, code: string): string {
  const country = COUNTRY_OF[home];
  const base = country ? COUNTRY_PROFILES[country].eiopa : undefined;
  return base && 'baseCode' in base ? base.baseCode(code) : code;
}

function rowName(row: Row): string {
  return row[COL.official] || row[COL.intName] || '';
}

function describeRow(row: Row): string {
  const op = row[COL.operates];
  const status = row[COL.crossBorder] || 'status not given';
  return `${row[COL.code]} (${status}${op ? `, operates in ${op}` : ''})`;
}

function toRecord(group: Group, nowMs: number, now: string): InsurerRecord {
  const domestic = group.rows.filter(isDomestic);
  const lead = domestic[0] ?? group.rows[0];
  if (!lead) throw new Error(`${WHAT}: internal error, empty group for ${group.reference}`);
  const name = rowName(lead);
  const nameKey = normaliseInsurerName(name);
  const aliases: string[] = [];
  const seen = new Set([nameKey]);
  for (const row of [lead, ...group.rows]) {
    for (const candidate of [row[COL.official], row[COL.intName], row[COL.local]]) {
      const key = candidate ? normaliseInsurerName(candidate) : '';
      if (!candidate || !key || seen.has(key)) continue;
      seen.add(key);
      aliases.push(candidate);
    }
  }
  const basis = domestic.length > 0 ? domestic : group.rows;
  const shown = group.rows.slice(0, MAX_CODES_SHOWN).map(describeRow).join('; ');
  const more = group.rows.length > MAX_CODES_SHOWN ? `; and ${group.rows.length - MAX_CODES_SHOWN} more` : '';
  const derived =
    domestic.length === 0 && COUNTRY_OF[group.home] === group.country
      ? ' Derived from cross-border rows only (no domestic row in the file).'
      : '';
  return {
    country: group.country,
    reference: group.reference,
    scheme: COUNTRY_OF[group.home] ? COUNTRY_PROFILES[COUNTRY_OF[group.home]!].eiopa.scheme : 'eiopa_id',
    name,
    aliases,
    regulated: 'YES',
    authorised: basis.some((r) => isCurrent(r, nowMs)),
    status_text: basis.some((r) => isCurrent(r, nowMs)) ? 'authorised (EIOPA register)' : 'no longer authorised (EIOPA register)',
    // The EIOPA register lists insurance undertakings only.
    kind: 'insurer',
    lei: group.rows.map((r) => r[COL.lei]).find((v) => v) ?? null,
    source: 'eiopa-register',
    source_detail: `EIOPA Register of Insurance Undertakings export; NCA: ${lead[COL.nca] || 'not given'}; rows: ${shown}${more}.${derived}`,
    demo: false,
    priority: 30,
    updated_at: now,
  };
}

/**
 * Parses an EIOPA register CSV export into register rows for DE, FR and UK (see the comment at the top
 * for how domestic and cross-border rows are filed). Throws when the header lacks a required column.
 */
export function parseEiopaRegisterCsv(text: string, now: string): InsurerRecord[] {
  const nowMs = Date.parse(now);
  if (Number.isNaN(nowMs)) throw new Error(`${WHAT}: "now" is not an ISO date: ${now}`);
  const table = readCsv(text, { delimiter: ';', what: WHAT });
  requireColumns(table, EIOPA_REQUIRED_COLUMNS, WHAT);

  const groups = new Map<string, Group>();
  const add = (country: TCountry, reference: string, home: string, row: Row): void => {
    const k = `${country}\u0000${reference}`;
    const g = groups.get(k) ?? { country, reference, home, rows: [] };
    g.rows.push(row);
    groups.set(k, g);
  };

  table.rows.forEach((row, i) => {
    const home = (row[COL.home] ?? '').toUpperCase();
    const code = (row[COL.code] ?? '').toUpperCase();
    if (!home || !code || !rowName(row)) {
      throw new Error(`${WHAT}: data row ${i + 1} lacks "${COL.home}", "${COL.code}" or a name`);
    }
    const op = (row[COL.operates] ?? '').toUpperCase() || home;
    const base = baseCode(home, code);
    const homeCountry = COUNTRY_OF[home];
    if (homeCountry) add(homeCountry, base, home, row);
    const opCountry = COUNTRY_OF[op];
    if (opCountry && opCountry !== homeCountry) add(opCountry, `${home}:${base}`, home, row);
  });

  return [...groups.values()].map((g) => toRecord(g, nowMs, now));
}
