/** CLI: parse one register file and upsert its rows into the store. */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { isRegisterFormat, parseRegisterFile, REGISTER_FORMATS, type RegisterFileExtra } from '../insurers/index.js';
import { wantsHelp, withStore } from './args.js';

const USAGE =
  `usage: npm run register:import -- --format ${REGISTER_FORMATS.join('|')} FILE [--db PATH] [--claims-ia FILE]\n` +
  '  --db         SQLite file (default: $COVERCHECK_DB or data/covercheck.db)\n' +
  '  --claims-ia  fr-acam only: fr_insurers_claimsia_codes.csv, whose legal names become aliases';

/** Exit code for bad arguments or a file that cannot be read or parsed. */
const EXIT_USAGE = 2;

function fail(message: string): never {
  process.stderr.write(`register:import: ${message}\n${USAGE}\n`);
  process.exit(EXIT_USAGE);
}

async function main(): Promise<void> {
  if (wantsHelp()) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: {
        format: { type: 'string' },
        db: { type: 'string' },
        'claims-ia': { type: 'string' },
      },
    });
  } catch (err) {
    fail((err as Error).message);
  }
  const { values, positionals } = parsed;
  const format = values.format;
  if (!format) fail('--format is required');
  if (!isRegisterFormat(format)) fail(`unknown --format "${format}"`);
  if (positionals.length !== 1) fail(positionals.length === 0 ? 'FILE is required' : 'exactly one FILE, please');
  const file = positionals[0] as string;
  if (values['claims-ia'] && format !== 'fr-acam') fail('--claims-ia only applies to --format fr-acam');

  let rows;
  try {
    const text = await readFile(file, 'utf8');
    const extra: RegisterFileExtra = {};
    if (values['claims-ia']) extra.claimsIaNamesText = await readFile(values['claims-ia'], 'utf8');
    rows = parseRegisterFile(format, text, new Date().toISOString(), extra);
  } catch (err) {
    fail(`cannot import ${file}: ${(err as Error).message}`);
  }

  const stored = await withStore(values.db, (store) => store.insurers.upsertMany(rows));
  process.stdout.write(`${JSON.stringify({ format, file, parsed: rows.length, stored })}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`register:import: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
