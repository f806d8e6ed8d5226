/** Importer for UK firm records from the FCA Financial Services Register (API responses or a CSV export). */
import type { InsurerRecord } from '../../store/types.js';
import { readCsv, requireColumns } from './csv.js';

/*
 * Shape of the FCA Register API firm endpoint, GET https://register.fca.org.uk/services/V0.1/Firm/{FRN}
 * (API resources at https://register.fca.org.uk/s/resources, keys via
 * https://register.fca.org.uk/Developer/s/registernewuser; the FCA's example response is reproduced in
 * github.com/CyborgFinance/FCARegisterLaravel fca-api-docs/firm-details.md, commit e6c4f4dd2a0a):
 *   { "Status": "FSR-API-02-01-00", "ResultInfo": {...}, "Message": "Ok. Firm Found",
 *     "Data": [ { "FRN": "615820", "Organisation Name": "ABC LTD", "Status": "Authorised",
 *                 "Status Effective Date": "31/08/2018", "Business Type": "Regulated", ... } ] }
 * "FSR-API-02-01-11" (no such firm) and "FSR-API-02-01-21" (FRN refused) come with Data null and are
 * skipped (codes as recorded from the live API in github.com/release-art/fca-api, src/fca_api/raw_status_codes.py).
 *
 * Register statuses seen for firms: "Authorised", "EEA Authorised", "Registered", "No longer authorised",
 * "Appointed representative" (typings of public FCA API clients; Creditsafe's FCA field notes,
 * https://doc.creditsafe.com/connect-apis-catalog/product-catalog/creditrisk/documentation/companies/fca). Only the first two are an authorisation to carry on regulated business
 * such as insurance. "Registered" is a registration (e.g. under the Money Laundering Regulations or as a
 * small payment institution) and an appointed representative acts under its principal's permission, so
 * both, like "No longer authorised", give authorised = false while the firm stays on the register.
 */

const WHAT = 'FCA register file';
const AUTHORISED_STATUSES = new Set(['authorised', 'eea authorised']);

type Firm = Record<string, unknown>;

function str(v: unknown): string {
  if (typeof v === 'string') return v.trim();
  if (typeof v === 'number') return String(v);
  return '';
}

/** Collects firm objects from a response, an array of responses, a bare firm, or an array of firms. */
function collectFirms(value: unknown, out: Firm[], where: string): void {
  if (Array.isArray(value)) {
    value.forEach((v, i) => collectFirms(v, out, `${where}[${i}]`));
    return;
  }
  if (value && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    if ('Data' in obj) {
      // Error responses carry Data: null (or nothing useful); they hold no firm.
      if (Array.isArray(obj.Data)) obj.Data.forEach((f, i) => collectFirms(f, out, `${where}.Data[${i}]`));
      return;
    }
    if ('FRN' in obj) {
      out.push(obj);
      return;
    }
  }
  throw new Error(`${WHAT}: ${where} is neither an FCA API response (with "Data") nor a firm record (with "FRN")`);
}

function parseJson(text: string): Firm[] {
  const firms: Firm[] = [];
  try {
    collectFirms(JSON.parse(text), firms, 'document');
    return firms;
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
  }
  // Not one JSON document: JSON Lines, one response (or array) per line.
  text.split(/\r?\n/).forEach((line, i) => {
    if (!line.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      throw new Error(`${WHAT}: line ${i + 1} is not valid JSON (${(err as Error).message})`);
    }
    collectFirms(value, firms, `line ${i + 1}`);
  });
  return firms;
}

function parseCsvFirms(text: string): Firm[] {
  const table = readCsv(text, { what: WHAT });
  requireColumns(table, ['FRN', 'Organisation Name', 'Status'], WHAT);
  return table.rows;
}

/** Where firm records were read: the importer's name, and the first part of each record's provenance. */
export interface FcaRecordOrigin {
  source: string;
  describe(frn: string): string;
}

const FILE_ORIGIN: FcaRecordOrigin = {
  source: 'fca-register',
  describe: (frn) => `FCA Financial Services Register firm record, https://register.fca.org.uk/services/V0.1/Firm/${frn}`,
};

/**
 * One FCA firm record (an API `Data` item or a CSV row) as an InsurerRecord; `n` numbers it in
 * error messages. Throws when it has no valid FRN or no name.
 */
export function fcaFirmToRecord(firm: Firm, now: string, n: number, origin: FcaRecordOrigin = FILE_ORIGIN): InsurerRecord {
  const frn = str(firm['FRN']);
  const name = str(firm['Organisation Name']);
  if (!/^\d{6,7}$/.test(frn)) throw new Error(`${WHAT}: firm ${n} has no valid FRN (6 or 7 digits): "${frn}"`);
  if (!name) throw new Error(`${WHAT}: firm ${n} (FRN ${frn}) has no "Organisation Name"`);
  const status = str(firm['Status']);
  const since = str(firm['Status Effective Date']);
  const type = str(firm['Business Type']);
  const detail = [
    origin.describe(frn),
    `status "${status || 'not given'}"${since ? ` since ${since}` : ''}`,
    type ? `business type ${type}` : '',
  ].filter(Boolean);
  return {
    country: 'UK',
    reference: frn,
    scheme: 'fca_frn',
    name,
    aliases: [],
    regulated: 'YES',
    authorised: AUTHORISED_STATUSES.has(status.toLowerCase()),
    status_text: status || null,
    // A firm record alone does not say whether the firm carries risk (its permissions do, which the online
    // source reads): a file may say so in a "Kind" column or field; without one its firms are taken as insurers.
    kind: str(firm['Kind'] ?? firm['kind']).toLowerCase() === 'intermediary' ? 'intermediary' : 'insurer',
    lei: null,
    source: origin.source,
    source_detail: detail.join('; '),
    demo: false,
    priority: 30,
    updated_at: now,
  };
}

/**
 * Parses FCA register firm records: one API firm response, an array of them, JSON Lines of either, or a
 * CSV with the columns FRN, Organisation Name, Status (extra columns are ignored). A later record for
 * the same FRN replaces an earlier one. Throws on an unrecognised shape or a record without FRN or name.
 */
export function parseFcaFirmRecords(text: string, now: string): InsurerRecord[] {
  const trimmed = text.replace(/^\uFEFF/, '').trim();
  if (!trimmed) throw new Error(`${WHAT}: the file is empty`);
  const firms = /^[[{]/.test(trimmed) ? parseJson(trimmed) : parseCsvFirms(trimmed);
  const byFrn = new Map<string, InsurerRecord>();
  firms.forEach((f, i) => {
    const rec = fcaFirmToRecord(f, now, i + 1);
    byFrn.set(rec.reference, rec);
  });
  return [...byFrn.values()];
}
