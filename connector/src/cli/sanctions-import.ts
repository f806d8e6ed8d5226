/** CLI: parse one official sanctions list file and replace that list's rows in the store. */
import { readFile, stat } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import {
  isSanctionsFormat,
  MAX_SANCTIONS_TEXT,
  parseSanctionsFile,
  SANCTIONS_FORMATS,
  storeSanctionsList,
  type ParsedSanctionsList,
} from '../sanctions/importers/index.js';
import { runCli, UsageError, withStore } from './args.js';

const USAGE =
  `usage: npm run sanctions:import -- --format ${SANCTIONS_FORMATS.join('|')} FILE [--db PATH]\n` +
  '  --format  ofsi: OFSI consolidated list, ConList.csv or ConList.xml (list uk-ofsi)\n' +
  '            uksl: UK Sanctions List XML (list uk-fcdo)\n' +
  '            eu:   EU financial sanctions list, XML or CSV (list eu-fsf)\n' +
  '  --db      SQLite file (default: $COVERCHECK_DB or data/covercheck.db)\n' +
  'Only entities are loaded (individuals and ships are skipped); the list named above is replaced whole.';

/** Bad arguments or a file that can't be read: exit 2 with the usage (runCli). */
function fail(message: string): never {
  throw new UsageError(`sanctions:import: ${message}`);
}

async function main(): Promise<void> {
  let parsedArgs;
  try {
    parsedArgs = parseArgs({ allowPositionals: true, options: { format: { type: 'string' }, db: { type: 'string' } } });
  } catch (err) {
    fail((err as Error).message);
  }
  const { values, positionals } = parsedArgs;
  const format = values.format;
  if (!format) fail('--format is required');
  if (!isSanctionsFormat(format)) fail(`unknown --format "${format}"`);
  if (positionals.length !== 1) fail(positionals.length === 0 ? 'FILE is required' : 'exactly one FILE, please');
  const file = positionals[0] as string;

  let parsed: ParsedSanctionsList;
  try {
    // Checked before reading, so an outsized file is refused without being loaded into memory.
    if ((await stat(file)).size > MAX_SANCTIONS_TEXT) throw new Error(`the file is larger than ${MAX_SANCTIONS_TEXT / 1024 / 1024} MB`);
    parsed = parseSanctionsFile(format, await readFile(file, 'utf8'));
  } catch (err) {
    fail(`cannot import ${file}: ${(err as Error).message}`);
  }

  const stored = await withStore(values.db, (store) => storeSanctionsList(store.sanctions, parsed));
  const { kind, list, published, entities, skipped } = parsed;
  process.stdout.write(
    `${JSON.stringify({ format, file, kind, list, published, entities, names: parsed.records.length, skipped, stored })}\n`,
  );
}

runCli(main, USAGE);
