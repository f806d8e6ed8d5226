/** Loads the register files shipped in connector/data/register into the store through the importers. */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { InsurerRecord, InsurerStore } from '../store/types.js';
import { parseRegisterFile, type RegisterFileExtra, type RegisterFormat } from './importers/index.js';

interface ShippedFile {
  format: RegisterFormat;
  file: string;
  /** Side files the importer reads, by RegisterFileExtra key. */
  extra?: { claimsIaNamesText?: string };
}

/** The shipped register files; SOURCES.md next to them says where each comes from. */
export const SHIPPED_REGISTER_FILES: readonly ShippedFile[] = [
  { format: 'eiopa', file: 'eiopa_register_sample.csv' },
  { format: 'de-vu', file: 'de_motor_insurers_vu_numbers.csv' },
  { format: 'fr-acam', file: 'fr_insurers_acam_codes.csv', extra: { claimsIaNamesText: 'fr_insurers_claimsia_codes.csv' } },
  { format: 'uk-frn', file: 'uk_insurers_frn.csv' },
  { format: 'demo', file: 'uk_demo_insurers.csv' },
];

/** Reads one shipped file (and its side files) and parses it with its importer. */
async function parseShippedFile(dataDir: string, shipped: ShippedFile, now: string): Promise<InsurerRecord[]> {
  const text = await readFile(join(dataDir, shipped.file), 'utf8');
  const extra: RegisterFileExtra = {};
  if (shipped.extra?.claimsIaNamesText) {
    extra.claimsIaNamesText = await readFile(join(dataDir, shipped.extra.claimsIaNamesText), 'utf8');
  }
  return parseRegisterFile(shipped.format, text, now, extra);
}

/** Every shipped register row, without a store: for extraction workers and scripts that only match names. */
export async function loadShippedRegisterRows(dataDir: string, now = new Date().toISOString()): Promise<InsurerRecord[]> {
  const rows: InsurerRecord[] = [];
  for (const shipped of SHIPPED_REGISTER_FILES) rows.push(...(await parseShippedFile(dataDir, shipped, now)));
  return rows;
}

/**
 * Parses every shipped register file in `dataDir` (the path of connector/data/register) and upserts the
 * rows. The store keeps the higher-priority row where two sources share a reference, so load order does
 * not matter. Returns `loaded`, the sum of what upsertMany reported, and `byFormat`, the rows parsed per
 * format. A missing or unparseable file throws: the shipped data is part of the build.
 */
export async function seedRegister(
  store: { insurers: InsurerStore },
  dataDir: string,
  now: string,
): Promise<{ loaded: number; byFormat: Record<string, number> }> {
  const byFormat: Record<string, number> = {};
  let loaded = 0;
  for (const shipped of SHIPPED_REGISTER_FILES) {
    const rows = await parseShippedFile(dataDir, shipped, now);
    byFormat[shipped.format] = (byFormat[shipped.format] ?? 0) + rows.length;
    loaded += await store.insurers.upsertMany(rows);
  }
  return { loaded, byFormat };
}
