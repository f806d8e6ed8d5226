/** Reference data in SQLite: insurers (with the version counter in-memory indexes watch), registry policies and coverage, sanctions lists. */
import type { TCountry } from '../../../../shared/policy.js';
import type { Db } from './db.js';
import type {
  InsurerRecord,
  InsurerStore,
  NewRegistryCoverage,
  RegistryPolicyRecord,
  RegistryStore,
  SanctionRecord,
  SanctionStore,
} from '../types/reference-data.js';
import { toCoverage, toInsurer, toPolicy, type Row } from './rows.js';

export function referenceDataStores(db: Db): { insurers: InsurerStore; registry: RegistryStore; sanctions: SanctionStore } {
  const q = {
    insurerUpsert:
      db.prepare(`INSERT INTO insurers (country, reference, scheme, name, aliases, regulated, authorised, lei, source, source_detail, demo, priority, updated_at, kind, status_text)
      VALUES (@country, @reference, @scheme, @name, @aliases, @regulated, @authorised, @lei, @source, @source_detail, @demo, @priority, @updated_at, @kind, @status_text)
      ON CONFLICT (country, reference) DO UPDATE SET scheme = excluded.scheme, name = excluded.name, aliases = excluded.aliases,
        regulated = excluded.regulated, authorised = excluded.authorised, lei = excluded.lei, source = excluded.source,
        source_detail = excluded.source_detail, demo = excluded.demo, priority = excluded.priority, updated_at = excluded.updated_at,
        kind = excluded.kind, status_text = excluded.status_text
      WHERE excluded.priority >= insurers.priority`),
    insurersByCountry: db.prepare('SELECT * FROM insurers WHERE country = ? ORDER BY reference'),
    insurerGet: db.prepare('SELECT * FROM insurers WHERE country = ? AND reference = ?'),
    insurerCount: db.prepare('SELECT count(*) AS n FROM insurers'),
    insurersBump: db.prepare("UPDATE meta SET value = value + 1 WHERE name = 'insurers_version'"),
    insurersVersion: db.prepare("SELECT value FROM meta WHERE name = 'insurers_version'"),
    policyUpsert:
      db.prepare(`INSERT INTO registry_policies (country, policy_number, insurance_type, insurer_reference, start_date, end_date, status, vehicle_registration, source, demo)
      VALUES (@country, @policy_number, @insurance_type, @insurer_reference, @start_date, @end_date, @status, @vehicle_registration, @source, @demo)
      ON CONFLICT (country, policy_number, insurance_type, demo) DO UPDATE SET insurer_reference = excluded.insurer_reference,
        start_date = excluded.start_date, end_date = excluded.end_date, status = excluded.status,
        vehicle_registration = excluded.vehicle_registration, source = excluded.source`),
    policyFind: db.prepare('SELECT * FROM registry_policies WHERE country = ? AND policy_number = ?'),
    policyCount: db.prepare('SELECT count(*) AS n FROM registry_policies'),
    coverageUpsert:
      db.prepare(`INSERT INTO registry_coverage (country, insurance_type, source, demo, demo_covered, updated_at) VALUES (@country, @insurance_type, @source, @demo, @demo, @updated_at)
      ON CONFLICT (country, insurance_type) DO UPDATE SET source = excluded.source, demo = min(registry_coverage.demo, excluded.demo),
        demo_covered = max(registry_coverage.demo_covered, excluded.demo_covered), updated_at = excluded.updated_at`),
    coverageGet: db.prepare('SELECT * FROM registry_coverage WHERE country = ? AND insurance_type = ?'),
    sanctionsDelete: db.prepare('DELETE FROM sanctions WHERE list = ?'),
    sanctionInsert: db.prepare('INSERT INTO sanctions (list, name, country, reference, demo) VALUES (?, ?, ?, ?, ?)'),
    sanctionsAll: db.prepare('SELECT * FROM sanctions ORDER BY list, name'),
  };

  const insurerUpsertTx = db.transaction((rows: InsurerRecord[]) => {
    let n = 0;
    for (const r of rows) {
      n += q.insurerUpsert.run({
        ...r,
        aliases: JSON.stringify(r.aliases),
        authorised: r.authorised ? 1 : 0,
        demo: r.demo ? 1 : 0,
      }).changes;
    }
    q.insurersBump.run();
    return n;
  });

  const policyUpsertTx = db.transaction((rows: RegistryPolicyRecord[]) => {
    let n = 0;
    for (const r of rows) n += q.policyUpsert.run({ ...r, demo: r.demo ? 1 : 0 }).changes;
    return n;
  });

  const coverageTx = db.transaction((rows: NewRegistryCoverage[]) => {
    for (const r of rows) q.coverageUpsert.run({ ...r, demo: r.demo ? 1 : 0 });
  });

  const sanctionsTx = db.transaction((list: string, rows: SanctionRecord[]) => {
    q.sanctionsDelete.run(list);
    for (const r of rows) q.sanctionInsert.run(list, r.name, r.country, r.reference, r.demo ? 1 : 0);
    q.insurersBump.run();
    return rows.length;
  });

  return {
    insurers: {
      async upsertMany(rows) {
        return insurerUpsertTx.immediate(rows);
      },
      async listByCountry(country) {
        return (q.insurersByCountry.all(country) as Row[]).map(toInsurer);
      },
      async get(country, reference) {
        const r = q.insurerGet.get(country, reference) as Row | undefined;
        return r ? toInsurer(r) : null;
      },
      async count() {
        return (q.insurerCount.get() as { n: number }).n;
      },
      async version() {
        return (q.insurersVersion.get() as { value: number }).value;
      },
    },
    registry: {
      async upsertMany(rows) {
        return policyUpsertTx.immediate(rows);
      },
      async find(country, policyNumber) {
        return (q.policyFind.all(country, policyNumber) as Row[]).map(toPolicy);
      },
      async setCoverage(rows) {
        coverageTx.immediate(rows);
      },
      async coverage(country, type) {
        const r = q.coverageGet.get(country, type) as Row | undefined;
        return r ? toCoverage(r) : null;
      },
      async count() {
        return (q.policyCount.get() as { n: number }).n;
      },
    },
    sanctions: {
      async replaceList(list, rows) {
        return sanctionsTx.immediate(list, rows);
      },
      async all() {
        return (q.sanctionsAll.all() as Row[]).map((r) => ({
          list: r.list as string,
          name: r.name as string,
          country: (r.country as TCountry | null) ?? null,
          reference: (r.reference as string | null) ?? null,
          demo: r.demo === 1,
        }));
      },
    },
  };
}
