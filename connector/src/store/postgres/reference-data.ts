/** Reference data in PostgreSQL: insurers (with the version counter in-memory indexes watch), registry policies and coverage, sanctions lists. */
import type { TCountry } from '../../../../shared/policy.js';
import type { InsurerStore, RegistryStore, SanctionStore } from '../types/reference-data.js';
import { all, changed, one, tx, type Db } from './db.js';
import { toCoverage, toInsurer, toPolicy } from './rows.js';

const bumpVersion = "UPDATE meta SET value = value + 1 WHERE name = 'insurers_version'";

export function referenceDataStores(db: Db): { insurers: InsurerStore; registry: RegistryStore; sanctions: SanctionStore } {
  return {
    insurers: {
      async upsertMany(rows) {
        return tx(db, async (c) => {
          let n = 0;
          for (const r of rows) {
            n += await changed(
              c,
              `INSERT INTO insurers (country, reference, scheme, name, aliases, regulated, authorised, lei, source, source_detail, demo, priority, updated_at, kind, status_text)
               VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
               ON CONFLICT (country, reference) DO UPDATE SET scheme = excluded.scheme, name = excluded.name, aliases = excluded.aliases,
                 regulated = excluded.regulated, authorised = excluded.authorised, lei = excluded.lei, source = excluded.source,
                 source_detail = excluded.source_detail, demo = excluded.demo, priority = excluded.priority, updated_at = excluded.updated_at,
                 kind = excluded.kind, status_text = excluded.status_text
               WHERE excluded.priority >= insurers.priority`,
              [
                r.country,
                r.reference,
                r.scheme,
                r.name,
                JSON.stringify(r.aliases),
                r.regulated,
                r.authorised,
                r.lei,
                r.source,
                r.source_detail,
                r.demo,
                r.priority,
                r.updated_at,
                r.kind,
                r.status_text,
              ],
            );
          }
          await c.query(bumpVersion);
          return n;
        });
      },
      async listByCountry(country) {
        return (await all(db, 'SELECT * FROM insurers WHERE country = $1 ORDER BY reference COLLATE "C"', [country])).map(toInsurer);
      },
      async get(country, reference) {
        const r = await one(db, 'SELECT * FROM insurers WHERE country = $1 AND reference = $2', [country, reference]);
        return r ? toInsurer(r) : null;
      },
      async count() {
        return (await one<{ n: number }>(db, 'SELECT count(*)::int AS n FROM insurers'))!.n;
      },
      async version() {
        return (await one<{ value: number }>(db, "SELECT value FROM meta WHERE name = 'insurers_version'"))!.value;
      },
    },
    registry: {
      async upsertMany(rows) {
        return tx(db, async (c) => {
          let n = 0;
          for (const r of rows) {
            n += await changed(
              c,
              `INSERT INTO registry_policies (country, policy_number, insurance_type, insurer_reference, start_date, end_date, status, vehicle_registration, source, demo)
               VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
               ON CONFLICT (country, policy_number, insurance_type, demo) DO UPDATE SET insurer_reference = excluded.insurer_reference,
                 start_date = excluded.start_date, end_date = excluded.end_date, status = excluded.status,
                 vehicle_registration = excluded.vehicle_registration, source = excluded.source`,
              [
                r.country,
                r.policy_number,
                r.insurance_type,
                r.insurer_reference,
                r.start_date,
                r.end_date,
                r.status,
                r.vehicle_registration,
                r.source,
                r.demo,
              ],
            );
          }
          return n;
        });
      },
      async find(country, policyNumber) {
        return (await all(db, 'SELECT * FROM registry_policies WHERE country = $1 AND policy_number = $2', [country, policyNumber])).map(
          toPolicy,
        );
      },
      async setCoverage(rows) {
        await tx(db, async (c) => {
          for (const r of rows) {
            // A coverage is demo only while every source behind it is demo (SQLite: min(demo)).
            await c.query(
              `INSERT INTO registry_coverage (country, insurance_type, source, demo, demo_covered, updated_at) VALUES ($1, $2, $3, $4, $4, $5)
               ON CONFLICT (country, insurance_type) DO UPDATE SET source = excluded.source, demo = registry_coverage.demo AND excluded.demo,
                 demo_covered = registry_coverage.demo_covered OR excluded.demo_covered, updated_at = excluded.updated_at`,
              [r.country, r.insurance_type, r.source, r.demo, r.updated_at],
            );
          }
        });
      },
      async coverage(country, type) {
        const r = await one(db, 'SELECT * FROM registry_coverage WHERE country = $1 AND insurance_type = $2', [country, type]);
        return r ? toCoverage(r) : null;
      },
      async count() {
        return (await one<{ n: number }>(db, 'SELECT count(*)::int AS n FROM registry_policies'))!.n;
      },
    },
    sanctions: {
      async replaceList(list, rows) {
        return tx(db, async (c) => {
          await c.query('DELETE FROM sanctions WHERE list = $1', [list]);
          for (const r of rows) {
            await c.query('INSERT INTO sanctions (list, name, country, reference, demo) VALUES ($1, $2, $3, $4, $5)', [
              list,
              r.name,
              r.country,
              r.reference,
              r.demo,
            ]);
          }
          await c.query(bumpVersion);
          return rows.length;
        });
      },
      async all() {
        return (
          await all(db, 'SELECT list, name, country, reference, demo FROM sanctions ORDER BY list COLLATE "C", name COLLATE "C"')
        ).map((r) => ({
          list: r.list as string,
          name: r.name as string,
          country: (r.country as TCountry | null) ?? null,
          reference: (r.reference as string | null) ?? null,
          demo: r.demo as boolean,
        }));
      },
    },
  };
}
