/** The sanctions list, matched by normalised name against insurers and provider names. */
import fs from 'node:fs';
import { parse } from 'csv-parse/sync';
import { COUNTRIES, countryFromInput, type TCountry } from '../../../shared/packs/index.js';
import { normaliseInsurerName } from '../insurers/normalise.js';
import type { SanctionRecord, SanctionStore } from '../store/types.js';

export class SanctionsIndex {
  private readonly byName = new Map<string, SanctionRecord[]>();

  constructor(records: SanctionRecord[]) {
    for (const r of records) {
      const k = normaliseInsurerName(r.name);
      if (!k) continue;
      const list = this.byName.get(k) ?? [];
      list.push(r);
      this.byName.set(k, list);
    }
  }

  /** The first listing that names one of `names` for this country (or for any country). */
  find(country: TCountry, names: readonly string[]): SanctionRecord | null {
    for (const name of names) {
      for (const r of this.byName.get(normaliseInsurerName(name)) ?? []) {
        if (r.country === null || r.country === country) return r;
      }
    }
    return null;
  }
}

/** Reads a sanctions CSV (name, country, list, reference) as shipped in connector/data/sanctions. */
export function parseSanctionsCsv(text: string, demo: boolean): SanctionRecord[] {
  const rows = parse(text, { columns: true, skip_empty_lines: true, trim: true, bom: true }) as Record<string, string>[];
  return rows.map((r, i) => {
    if (!r.name) throw new Error(`sanctions row ${i + 2}: name is empty`);
    const country = r.country ? r.country.toUpperCase() : '';
    const supported = country ? countryFromInput(country) : null;
    if (country && !supported) throw new Error(`sanctions row ${i + 2}: country ${country} is not one of ${COUNTRIES.join(', ')}`);
    return { name: r.name, country: supported, list: r.list || 'unnamed', reference: r.reference || null, demo };
  });
}

export async function loadSanctionsFile(store: SanctionStore, file: string, list: string, demo: boolean): Promise<number> {
  return store.replaceList(list, parseSanctionsCsv(fs.readFileSync(file, 'utf8'), demo));
}
