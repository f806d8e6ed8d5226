/**
 * Reads a policy-registry CSV (see connector/data/registry/SOURCES.md for the columns) into
 * registry rows and the coverage it declares: every (country, type) present in a file counts as
 * covered by that file's source, so an unknown number there means "not found", not "no coverage".
 */
import { parse } from 'csv-parse/sync';
import { COUNTRIES, INSURANCE_TYPES, type TCountry, type TInsuranceType } from '../../../../shared/policy.js';
import { REGISTRY_STATUSES } from '../../../../shared/verification.js';
import type { NewRegistryCoverage, RegistryPolicyRecord } from '../../store/types.js';
import { normalisePolicyNumber } from '../normalise.js';

const REQUIRED = ['policy_number', 'country', 'insurance_type', 'status'];
const DATE = /^\d{4}-\d{2}-\d{2}$/;

export class RegistryImportError extends Error {}

export function parseRegistryCsv(
  text: string,
  opts: { source: string; demo: boolean; now: string },
): { rows: RegistryPolicyRecord[]; coverage: NewRegistryCoverage[] } {
  let records: Record<string, string>[];
  try {
    records = parse(text, { columns: true, skip_empty_lines: true, trim: true, bom: true }) as Record<string, string>[];
  } catch (err) {
    throw new RegistryImportError(`Not a readable CSV: ${(err as Error).message}`);
  }
  const header = records.length > 0 ? Object.keys(records[0]!) : [];
  const missing = REQUIRED.filter((c) => !header.includes(c));
  if (records.length > 0 && missing.length > 0)
    throw new RegistryImportError(`Missing column${missing.length > 1 ? 's' : ''}: ${missing.join(', ')}`);
  const rows: RegistryPolicyRecord[] = [];
  const covered = new Set<string>();
  records.forEach((r, i) => {
    const line = i + 2;
    const country = (r.country ?? '').toUpperCase() as TCountry;
    const type = (r.insurance_type ?? '').toLowerCase() as TInsuranceType;
    const status = (r.status ?? '').toLowerCase() as RegistryPolicyRecord['status'];
    if (!COUNTRIES.includes(country))
      throw new RegistryImportError(`Line ${line}: country "${r.country}" is not one of ${COUNTRIES.join(', ')}`);
    if (!INSURANCE_TYPES.includes(type))
      throw new RegistryImportError(`Line ${line}: insurance_type "${r.insurance_type}" is not one of ${INSURANCE_TYPES.join(', ')}`);
    if (!REGISTRY_STATUSES.includes(status))
      throw new RegistryImportError(`Line ${line}: status "${r.status}" is not one of ${REGISTRY_STATUSES.join(', ')}`);
    const number = normalisePolicyNumber(r.policy_number ?? '');
    if (!number) throw new RegistryImportError(`Line ${line}: policy_number is empty`);
    for (const d of ['start_date', 'end_date'] as const) {
      if (r[d] && !DATE.test(r[d]!)) throw new RegistryImportError(`Line ${line}: ${d} "${r[d]}" is not YYYY-MM-DD`);
    }
    covered.add(`${country}:${type}`);
    rows.push({
      policy_number: number,
      country,
      insurance_type: type,
      insurer_reference: r.insurer_reference || null,
      start_date: r.start_date || null,
      end_date: r.end_date || null,
      status,
      vehicle_registration: r.vehicle_registration || null,
      source: opts.source,
      demo: opts.demo,
    });
  });
  const coverage = [...covered].map((k) => {
    const [country, type] = k.split(':') as [TCountry, TInsuranceType];
    return { country, insurance_type: type, source: opts.source, demo: opts.demo, updated_at: opts.now };
  });
  return { rows, coverage };
}
