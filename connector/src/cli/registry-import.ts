/**
 * npm run registry:import -- FILE.csv [--source NAME] [--demo] [--db PATH]
 * Loads known policies into the country policy registry and marks the (country, type) pairs in
 * the file as covered by it. Prints {file, source, stored, coverage}.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { parseRegistryCsv, RegistryImportError } from '../verify/registry/import.js';
import { runCli, UsageError, withStore } from './args.js';

const USAGE =
  'Usage: npm run registry:import -- FILE.csv [--source NAME] [--demo] [--db PATH]\nColumns: policy_number,country,insurance_type,insurer_reference,start_date,end_date,status,vehicle_registration';

async function main(): Promise<void> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { source: { type: 'string' }, demo: { type: 'boolean' }, db: { type: 'string' } },
  });
  const file = positionals[0];
  if (!file) throw new UsageError('FILE.csv is required');
  if (!fs.existsSync(file)) throw new UsageError(`No such file: ${file}`);
  const source = values.source ?? path.basename(file, path.extname(file));
  let parsed;
  try {
    parsed = parseRegistryCsv(fs.readFileSync(file, 'utf8'), { source, demo: values.demo ?? false, now: new Date().toISOString() });
  } catch (err) {
    if (err instanceof RegistryImportError) throw new UsageError(`${file}: ${err.message}`);
    throw err;
  }
  await withStore(values.db, async (store) => {
    const stored = await store.registry.upsertMany(parsed.rows);
    await store.registry.setCoverage(parsed.coverage);
    process.stdout.write(
      `${JSON.stringify({ file, source, stored, coverage: parsed.coverage.map((c) => `${c.country}:${c.insurance_type}`) })}\n`,
    );
  });
}

runCli(main, USAGE);
