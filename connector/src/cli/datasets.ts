/**
 * Operator CLI for the dataset catalogue (prints JSON):
 *   npm run datasets:import -- FILE.csv --slug SLUG --cadence daily|weekly|monthly|quarterly
 *        [--title T] [--description D] [--category C] [--source PUBLISHER] [--source-url URL] [--unit U]
 *        [--date-column date] [--value-column value] [--filter column=value] [--merge]
 *        [--refresh-url URL --refresh-format csv|json]
 *   npm run datasets:refresh -- [--slug SLUG] [--force]
 * Import loads or updates a dataset: new datasets need --title, --category, --source and --source-url;
 * an existing one keeps what is not given. Points replace the series unless --merge.
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { CADENCES } from '../../../shared/dataset.js';
import { readCsvSeries, SeriesFormatError } from '../datasets/read-series.js';
import { isDue, refreshDataset } from '../datasets/refresh.js';
import type { Cadence, DatasetMeta } from '../store/types.js';
import { runCli, UsageError, withStore } from './args.js';

const USAGE = `Usage:
  npm run datasets:import -- FILE.csv --slug SLUG --cadence daily|weekly|monthly|quarterly [--title T] [--description D]
       [--category C] [--source PUBLISHER] [--source-url URL] [--unit U] [--date-column date] [--value-column value]
       [--filter column=value] [--merge] [--refresh-url URL --refresh-format csv|json]
  npm run datasets:refresh -- [--slug SLUG] [--force]
Options: --db PATH (default $COVERCHECK_DB or data/covercheck.db)`;

async function importCommand(args: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      slug: { type: 'string' },
      cadence: { type: 'string' },
      title: { type: 'string' },
      description: { type: 'string' },
      category: { type: 'string' },
      source: { type: 'string' },
      'source-url': { type: 'string' },
      unit: { type: 'string' },
      'date-column': { type: 'string' },
      'value-column': { type: 'string' },
      filter: { type: 'string', multiple: true },
      merge: { type: 'boolean' },
      'refresh-url': { type: 'string' },
      'refresh-format': { type: 'string' },
      db: { type: 'string' },
    },
  });
  const file = positionals[0];
  if (!file) throw new UsageError('FILE.csv is required');
  if (!fs.existsSync(file)) throw new UsageError(`No such file: ${file}`);
  if (!values.slug || !/^[a-z0-9][a-z0-9-]{1,80}$/.test(values.slug))
    throw new UsageError('--slug is required: lower-case letters, digits and dashes');
  if (!values.cadence || !(CADENCES as readonly string[]).includes(values.cadence))
    throw new UsageError(`--cadence must be one of ${CADENCES.join(', ')}`);
  const filter: Record<string, string[]> = {};
  for (const f of values.filter ?? []) {
    const [col, val] = f.split('=', 2);
    if (!col || val === undefined) throw new UsageError(`--filter "${f}" is not column=value`);
    (filter[col] ??= []).push(val);
  }
  let points;
  try {
    points = readCsvSeries(fs.readFileSync(file, 'utf8'), {
      date_column: values['date-column'] ?? 'date',
      value_column: values['value-column'] ?? 'value',
      filter,
    });
  } catch (err) {
    if (err instanceof SeriesFormatError) throw new UsageError(`${file}: ${err.message}`);
    throw err;
  }
  if (values['refresh-url'] && !['csv', 'json'].includes(values['refresh-format'] ?? ''))
    throw new UsageError('--refresh-format must be csv or json');
  await withStore(values.db, async (store) => {
    const existing = await store.datasets.get(values.slug!);
    const need = (v: string | undefined, flag: string, old: string | undefined) => {
      const out = v ?? old;
      if (out === undefined) throw new UsageError(`--${flag} is required for a new dataset`);
      return out;
    };
    const meta: DatasetMeta = {
      slug: values.slug!,
      title: need(values.title, 'title', existing?.title),
      description: values.description ?? existing?.description ?? '',
      category: need(values.category, 'category', existing?.category),
      source: need(values.source, 'source', existing?.source),
      source_url: need(values['source-url'], 'source-url', existing?.source_url),
      licence: existing?.licence ?? null,
      cadence: values.cadence as Cadence,
      unit: values.unit ?? existing?.unit ?? '',
      refresh: values['refresh-url']
        ? {
            url: values['refresh-url'],
            format: values['refresh-format'] as 'csv' | 'json',
            date_column: values['date-column'] ?? 'date',
            value_column: values['value-column'] ?? 'value',
          }
        : (existing?.refresh ?? null),
    };
    const at = new Date().toISOString();
    await store.datasets.upsert(meta, at);
    const written = await store.datasets.writePoints(meta.slug, points, values.merge ? 'merge' : 'replace', at);
    const after = (await store.datasets.get(meta.slug))!;
    process.stdout.write(
      `${JSON.stringify({ slug: meta.slug, created: !existing, points_read: written, point_count: after.point_count, first_date: after.first_date, last_date: after.last_date })}\n`,
    );
  });
}

async function refreshCommand(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { slug: { type: 'string' }, force: { type: 'boolean' }, db: { type: 'string' } } });
  await withStore(values.db, async (store) => {
    const now = () => new Date();
    const all = await store.datasets.refreshable();
    const chosen = values.slug ? all.filter((d) => d.slug === values.slug) : all;
    if (values.slug && chosen.length === 0) throw new Error(`No dataset ${values.slug} with a refresh source`);
    const out = [];
    for (const d of chosen) {
      if (!values.force && !isDue(d, now())) {
        out.push({ slug: d.slug, skipped: 'not due' });
        continue;
      }
      out.push(await refreshDataset(store.datasets, d, { now }));
    }
    process.stdout.write(`${JSON.stringify(out)}\n`);
  });
}

const [command, ...rest] = process.argv.slice(2);
runCli(async () => {
  if (command === 'import') return importCommand(rest);
  if (command === 'refresh') return refreshCommand(rest);
  throw new UsageError(`Unknown command ${command ?? '(none)'}`);
}, USAGE);
