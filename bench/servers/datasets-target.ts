/**
 * Bench target for bench/datasets: the connector app on a temporary SQLite file holding the
 * shipped catalogue plus 10,000 generated datasets (words drawn from a vocabulary, so searches hit
 * realistic numbers of rows) and one 100,000-point series, with a bare Express route beside it.
 */
import { once } from 'node:events';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../connector/src/config.js';
import { createLogger } from '../../connector/src/logger.js';
import { startConnector } from '../../connector/src/start.js';
import { helloApp } from './hello.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'covercheck-bench-datasets-'));
const config = loadConfig({
  COVERCHECK_DB: path.join(dir, 'bench.db'),
  COVERCHECK_LOG_LEVEL: 'warn',
  COVERCHECK_RATE_LIMIT_IP_PER_MIN: '10000000',
});
// As main.ts starts it, without PDF extraction and without workers (no jobs here).
const target = await startConnector({ config, logger: createLogger('warn', fs.createWriteStream('/dev/null')), extractionThreads: 0 });
const { store } = target;

const WORDS = [
  'insurance',
  'motor',
  'health',
  'travel',
  'premium',
  'claims',
  'index',
  'rate',
  'yield',
  'price',
  'inflation',
  'gdp',
  'employment',
  'housing',
  'energy',
  'oil',
  'gas',
  'euro',
  'sterling',
  'germany',
  'france',
  'united',
  'kingdom',
  'quarterly',
  'monthly',
  'regional',
  'national',
  'household',
  'business',
  'survey',
  'loss',
  'ratio',
  'solvency',
  'capital',
  'reserve',
  'mortality',
  'lapse',
  'fraud',
  'weather',
  'flood',
];
const CATS = ['insurance prices', 'inflation', 'interest rates', 'economy', 'commodities', 'exchange rates', 'labour', 'climate'];
const SOURCES = ['Office for National Statistics', 'Bank of England', 'EIOPA', 'Eurostat', 'Destatis', 'INSEE', 'Federal Reserve'];
const CADS = ['daily', 'weekly', 'monthly', 'quarterly'] as const;
let seed = 42;
const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const pick = <T>(a: readonly T[]) => a[Math.floor(rnd() * a.length)]!;
const at = new Date().toISOString();
for (let i = 0; i < 10_000; i++) {
  const words = Array.from({ length: 4 }, () => pick(WORDS));
  await store.datasets.upsert(
    {
      slug: `gen-${i}`,
      title: `${words.slice(0, 3).join(' ')} ${i}`,
      description: `Generated for the benchmark: ${words.join(', ')} ${Array.from({ length: 8 }, () => pick(WORDS)).join(' ')}.`,
      category: pick(CATS),
      source: pick(SOURCES),
      source_url: 'https://example.org/bench',
      licence: null,
      cadence: pick(CADS),
      unit: 'index',
      refresh: null,
    },
    at,
  );
}
const big = Array.from({ length: 100_000 }, (_, i) => ({
  date: new Date(Date.UTC(1750, 0, 1) + i * 86_400_000).toISOString().slice(0, 10),
  value: Math.sin(i / 100) * 100,
}));
await store.datasets.upsert(
  {
    slug: 'gen-big-series',
    title: 'Big generated series',
    description: '100,000 daily points',
    category: 'economy',
    source: 'Covercheck bench',
    source_url: 'https://example.org',
    licence: null,
    cadence: 'daily',
    unit: 'x',
    refresh: null,
  },
  at,
);
await store.datasets.writePoints('gen-big-series', big, 'replace', at);

const a = await target.listen(0, '127.0.0.1');
// The bare route as Express serves it by default (app.listen), not as the connector is served.
const b = helloApp().listen(0, '127.0.0.1');
await once(b, 'listening');
process.stdout.write(
  JSON.stringify({
    port: (a.address() as AddressInfo).port,
    barePort: (b.address() as AddressInfo).port,
    datasets: await store.datasets.count(),
  }) + '\n',
);
process.on('SIGTERM', () => {
  b.close();
  void target.stop().then(() => {
    fs.rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  });
});
