/**
 * Reads the environment once into a typed, validated config; nothing else reads process.env. Each
 * variable is declared once, in EnvSchema (name, bounds, default); the transform below shapes the
 * variables into the `Config` the code uses, and `Config` is the transform's output type.
 */
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { COUNTRIES, countryFromInput } from '../../shared/packs/index.js';
import { SCHEDULE_PAUSE_AFTER_FAILURES } from '../../shared/sheets.js';

const MB = 1024 * 1024;

/**
 * The budget one document may spend in the extractor (extract/limits.ts checks it), one row per
 * limit: its `Config` key, its variable and bounds, its default in the variable's unit, and what
 * docs/document-limits.md says of it (its table is this one: test/docs/document-limits.test.ts).
 * Every PDF of the test corpus and of the shared reference documents stays far inside each default;
 * the doc has why each value.
 */
export const EXTRACT_LIMITS = [
  {
    key: 'maxPages',
    env: 'COVERCHECK_EXTRACT_MAX_PAGES',
    min: 1,
    max: 10_000,
    default: 20,
    unit: '',
    limit: 'Pages per document',
    checked: 'when pdf.js opens the file',
    example: 'The PDF has 21 pages; the limit is 20.',
  },
  // Area in pt² (1 pt = 1/72 inch), after the page's UserUnit. A0 (8.0 million) with room to spare, and
  // an A4 scan at 300 dpi that an image tool wrote at one point per pixel (2480 x 3508 pt).
  {
    key: 'maxPageAreaPt2',
    env: 'COVERCHECK_EXTRACT_MAX_PAGE_AREA_PT2',
    min: 10_000,
    max: 1e12,
    default: 10_000_000,
    unit: 'pt²',
    limit: 'Area of one page',
    checked: "every page's size, before any page is read",
    example: 'Page 1 is 5,000 x 5,000 pt (25 million pt²); the limit is 10 million pt² per page',
  },
  {
    key: 'maxTotalAreaPt2',
    env: 'COVERCHECK_EXTRACT_MAX_TOTAL_AREA_PT2',
    min: 10_000,
    max: 1e13,
    default: 40_000_000,
    unit: 'pt²',
    limit: 'Area of all pages',
    checked: 'the same pass',
    example: 'Pages 1 to 5 measure 45 million pt² together; the limit is 40 million pt² per document.',
  },
  // A little over A3 at the OCR resolution of 150 dpi; a larger page (nearly always a photo or scan stored at
  // a point per pixel, whose sheet is A4) is rendered at a lower resolution (docs/document-limits.md).
  {
    key: 'maxPagePixels',
    env: 'COVERCHECK_EXTRACT_MAX_PAGE_PIXELS',
    min: 10_000,
    max: 1e10,
    default: 5_000_000,
    unit: '',
    limit: 'Pixels rendered for one page',
    checked: 'before the canvas is made',
    example: '(not refused: the page is rendered at a lower resolution)',
  },
  // 20 A4 pages at 150 dpi are 43.5 million.
  {
    key: 'maxTotalPixels',
    env: 'COVERCHECK_EXTRACT_MAX_TOTAL_PIXELS',
    min: 10_000,
    max: 1e11,
    default: 50_000_000,
    unit: '',
    limit: 'Pixels rendered for the document',
    checked: "before each page's canvas",
    example: 'Reading page 7 by OCR would bring the pixels rendered for this document to 52 million; the limit is 50 million per document.',
  },
  // Width x height as the image's dictionary states them. An A4 page scanned at 600 dpi is 34.8 million.
  {
    key: 'maxImagePixels',
    env: 'COVERCHECK_EXTRACT_MAX_IMAGE_PIXELS',
    min: 10_000,
    max: 1e10,
    default: 40_000_000,
    unit: '',
    limit: 'Pixels of one image',
    checked: "from the image's dictionary, before pdf.js opens the file",
    example: 'An image in the PDF is 40,000 x 40,000 pixels (1,600 million pixels); the limit is 40 million pixels per image.',
  },
  // 20 A4 pages scanned at 300 dpi are 174 million.
  {
    key: 'maxTotalImagePixels',
    env: 'COVERCHECK_EXTRACT_MAX_TOTAL_IMAGE_PIXELS',
    min: 10_000,
    max: 1e11,
    default: 200_000_000,
    unit: '',
    limit: 'Pixels of all images',
    checked: 'the same pass',
    example: "The PDF's images add up to more than 200 million pixels, the limit per document.",
  },
  // Bytes (the variable is in MB) the compressed streams other than images decode to, all together.
  {
    key: 'maxStreamBytes',
    env: 'COVERCHECK_EXTRACT_MAX_STREAM_MB',
    min: 1,
    max: 100_000,
    default: 64,
    unit: 'MB',
    limit: 'Decoded stream bytes (page contents, fonts, forms)',
    checked: 'the same pass, inflating and counting (nothing kept)',
    example: "The PDF's compressed page contents and fonts decode to more than 64 MB, the limit per document.",
  },
  // Content operators the pages draw, every form (XObject) expanded each time it is drawn (extract/xobject-fanout.ts):
  // 150 times the most a real document draws, some 11 s of processor time at pdf.js's dearest cost per operator.
  {
    key: 'maxExpandedOps',
    env: 'COVERCHECK_EXTRACT_MAX_EXPANDED_OPS',
    min: 1000,
    max: 1e15,
    default: 250_000,
    unit: '',
    limit: 'Content operators drawn, each form counted as often as it is drawn',
    checked: 'the same pass, last ([forms that draw forms](#forms-that-draw-forms))',
    example:
      'The PDF draws too much nested content: one of its forms (XObjects), counting the forms it draws each time they are drawn, comes to more than 250,000 content operators, the limit per document.',
  },
  // Processor time, not wall time: the extraction process runs at the lowest priority and waits while
  // anything else runs, and that wait is not the document's. OCR runs in tesseract's own thread and is
  // bounded by the pixel limits.
  {
    key: 'cpuMs',
    env: 'COVERCHECK_EXTRACT_CPU_MS',
    min: 1000,
    max: 3_600_000,
    default: 30_000,
    unit: 'ms',
    limit: "Processor time of the document's thread",
    checked: 'every 250 ms while it runs',
    example: 'Reading the PDF took more than 30 s of processor time, the limit per document.',
  },
  // From the moment a thread starts the document: the backstop for one that hangs without using the processor.
  {
    key: 'wallMs',
    env: 'COVERCHECK_EXTRACT_WALL_MS',
    min: 1000,
    max: 86_400_000,
    default: 300_000,
    unit: 'ms',
    limit: 'Wall time of the document',
    checked: 'every 250 ms while it runs, plus a backstop',
    example: 'Reading the PDF took longer than 300 s, the limit per document.',
  },
  // Resident memory of the extraction process; above it the process is ended.
  {
    key: 'memoryMb',
    env: 'COVERCHECK_EXTRACT_MEMORY_MB',
    min: 128,
    max: 1_000_000,
    default: 1536,
    unit: 'MB',
    limit: 'Memory of the extraction process',
    checked: 'resident memory every 50 ms while it has documents',
    example: "Reading the PDF needed more than 1536 MB of memory, the extractor's limit.",
  },
] as const;

type ExtractLimitRow = (typeof EXTRACT_LIMITS)[number];
/** The budget of one document, by the keys of EXTRACT_LIMITS. */
export type ExtractLimits = Record<ExtractLimitRow['key'], number>;

/** A variable's value in the unit `Config` keeps (maxStreamBytes in bytes, the variable in MB). */
const limitValue = (row: ExtractLimitRow, v: number) => (row.key === 'maxStreamBytes' ? v * MB : v);

export const EXTRACT_LIMIT_DEFAULTS = Object.fromEntries(EXTRACT_LIMITS.map((r) => [r.key, limitValue(r, r.default)])) as ExtractLimits;

/** The HTTP server's connection bounds and timeouts (docs/connection-limits.md has why these). */
export const CONNECTION_DEFAULTS = {
  maxTotal: null as number | null,
  maxPerAddress: null as number | null,
  fdReserve: 1024,
  idleMs: 10_000,
  headersTimeoutMs: 20_000,
  requestTimeoutMs: 300_000,
  keepAliveTimeoutMs: 5_000,
};

/** `domains:` takes host names of letters, digits and hyphens (no wildcard: a subdomain is listed as itself). */
const DOMAIN = String.raw`[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+`;
const PORTAL_POLICY = new RegExp(String.raw`^(?:open|test-only|off|domains:\s*${DOMAIN}(?:\s*,\s*${DOMAIN})*\s*)$`);
const bool = z.enum(['1', '0', 'true', 'false', 'yes', 'no']).transform((v) => v === '1' || v === 'true' || v === 'yes');
const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

const extractLimitVariables = Object.fromEntries(EXTRACT_LIMITS.map((r) => [r.env, int(r.min, r.max).default(r.default)])) as Record<
  ExtractLimitRow['env'],
  z.ZodDefault<z.ZodCoercedNumber>
>;

/** Every variable the connector reads: its name, its bounds and its default. docs/configuration.md lists exactly these (test/docs/configuration.test.ts). */
export const EnvSchema = z.object({
  PORT: int(0, 65535).default(8080),
  HOST: z.string().min(1).default('0.0.0.0'),
  COVERCHECK_DB: z.string().min(1).default('data/covercheck.db'),
  COVERCHECK_DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\/\S+$/, 'must be postgres://user:password@host:port/database')
    .optional(),
  COVERCHECK_DATABASE_POOL: int(1, 200).default(10),
  COVERCHECK_SQLITE_WAL_SYNC_MS: int(0, 60_000).default(20),
  COVERCHECK_REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\/\S+$/, 'must be redis://[:password@]host:port[/db] or rediss://...')
    .optional(),
  COVERCHECK_REDIS_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_.:-]{1,64}$/, 'letters, digits and _ . : - only')
    .default('covercheck'),
  COVERCHECK_REDIS_LIMITER_IDLE_MS: int(1_000, 86_400_000).default(300_000),
  COVERCHECK_DEMO: bool.default(true),
  COVERCHECK_SANDBOX_KEY: z
    .string()
    .regex(/^pk_test_[A-Za-z0-9]{44}$/, 'must be a pk_test_ key as printed by `npm run keys -- create --mode test`')
    .optional(),
  COVERCHECK_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  COVERCHECK_RATE_LIMIT_KEY_PER_MIN: int(1, 10_000_000).default(600),
  COVERCHECK_RATE_LIMIT_IP_PER_MIN: int(1, 10_000_000).default(60),
  COVERCHECK_TRUST_PROXY: z.string().default('false'),
  COVERCHECK_METRICS: z.enum(['off', 'loopback', 'token']).default('loopback'),
  COVERCHECK_METRICS_TOKEN: z.string().min(32, 'must be at least 32 characters (e.g. openssl rand -hex 32)').optional(),
  COVERCHECK_JSON_LIMIT_KB: int(1, 1024).default(64),
  // A share must hold the largest body a route takes (an async verification's 18.7 MB of base64).
  COVERCHECK_BODY_BUDGET_MB: int(20, 1_000_000).default(256),
  COVERCHECK_BODY_BUDGET_PER_CLIENT_MB: int(20, 1_000_000).default(64),
  COVERCHECK_DOCUMENT_QUOTA_MB: int(1, 1e9).default(10_240),
  COVERCHECK_DOCUMENT_QUOTA_SANDBOX_MB: int(1, 1e9).default(256),
  COVERCHECK_DOCUMENT_RETENTION_HOURS: int(0, 87_600).default(24),
  COVERCHECK_RESULT_RETENTION_DAYS: int(1, 3_650).default(30),
  COVERCHECK_RETENTION_INTERVAL_MS: int(1000, 86_400_000).default(600_000),
  COVERCHECK_WATCH_WORKERS: int(0, 64).default(2),
  COVERCHECK_WATCH_LEASE_MS: int(500, 3_600_000).default(60_000),
  COVERCHECK_WATCH_CHUNK: int(1, 10_000).default(200),
  COVERCHECK_WATCH_CONCURRENCY: int(1, 100).default(8),
  COVERCHECK_WATCH_RECHECK_INTERVAL_MS: int(100, 86_400_000).default(30_000),
  COVERCHECK_DISK_RESERVE_MB: int(0, 1e12).default(1024),
  COVERCHECK_DISK_GUARD_PATH: z.string().min(1).optional(),
  COVERCHECK_MAX_CONNECTIONS: int(1, 10_000_000).optional(),
  COVERCHECK_MAX_CONNECTIONS_PER_IP: int(1, 10_000_000).optional(),
  COVERCHECK_FD_RESERVE: int(0, 10_000_000).default(CONNECTION_DEFAULTS.fdReserve),
  COVERCHECK_CONNECTION_IDLE_MS: int(100, 3_600_000).default(CONNECTION_DEFAULTS.idleMs),
  COVERCHECK_HEADERS_TIMEOUT_MS: int(100, 3_600_000).default(CONNECTION_DEFAULTS.headersTimeoutMs),
  COVERCHECK_REQUEST_TIMEOUT_MS: int(100, 86_400_000).default(CONNECTION_DEFAULTS.requestTimeoutMs),
  COVERCHECK_KEEP_ALIVE_TIMEOUT_MS: int(100, 3_600_000).default(CONNECTION_DEFAULTS.keepAliveTimeoutMs),
  COVERCHECK_REGISTRY_TIMEOUT_MS: int(50, 60_000).default(2000),
  COVERCHECK_REGISTRY_MAX_CONCURRENT: int(1, 1000).default(8),
  COVERCHECK_REGISTRY_MIN_TIME_MS: int(0, 60_000).default(0),
  COVERCHECK_REGISTRY_PER_SEC: int(1, 100_000).optional(),
  COVERCHECK_REGISTRY_UPSTREAMS: z.string().default(''),
  COVERCHECK_FCA_API_EMAIL: z.string().min(3).optional(),
  COVERCHECK_FCA_API_KEY: z.string().min(1).optional(),
  COVERCHECK_FCA_API_URL: z.url({ protocol: /^https?$/ }).default('https://register.fca.org.uk/services/V0.1'),
  COVERCHECK_FCA_CACHE_TTL_S: int(0, 30 * 86_400).default(86_400),
  COVERCHECK_FCA_TIMEOUT_MS: int(50, 60_000).optional(),
  COVERCHECK_FCA_PER_SEC: int(1, 100_000).default(5),
  COVERCHECK_WORKERS: int(0, 64).default(4),
  COVERCHECK_BATCH_CONCURRENCY: int(1, 100).default(8),
  COVERCHECK_JOB_LEASE_MS: int(200, 600_000).default(15_000),
  COVERCHECK_QUEUE_POLL_MS: int(10, 60_000).default(500),
  COVERCHECK_WEBHOOK_TIMEOUT_MS: int(100, 60_000).default(10_000),
  COVERCHECK_WEBHOOK_CONCURRENCY: int(0, 256).default(8),
  COVERCHECK_WEBHOOK_HOST_CONCURRENCY: int(1, 64).default(2),
  COVERCHECK_WEBHOOK_HOST_MIN_TIME_MS: int(0, 60_000).default(0),
  COVERCHECK_WEBHOOK_HOST_QUEUE: int(0, 10_000).default(1_000),
  COVERCHECK_WEBHOOK_BREAKER_FAILURES: int(0, 1_000).default(5),
  COVERCHECK_WEBHOOK_BREAKER_COOLDOWN_MS: int(100, 86_400_000).default(60_000),
  COVERCHECK_WEBHOOK_RETRY_SCALE: z.coerce.number().positive().max(100).default(1),
  COVERCHECK_WEBHOOK_ALLOW_PRIVATE: bool.default(false),
  COVERCHECK_WEBHOOK_CA_FILE: z.string().optional(),
  COVERCHECK_EXTRACT_THREADS: int(0, 64).optional(),
  COVERCHECK_EXTRACT_MAX_PENDING: int(1, 100_000).default(50),
  COVERCHECK_EXTRACT_SANDBOX_SHARE_PCT: int(0, 100).default(50),
  COVERCHECK_EXTRACT_READING_PER_KEY: int(1, 64).default(2),
  COVERCHECK_EXTRACT_READING_PER_SANDBOX_KEY: int(1, 64).default(1),
  COVERCHECK_EXTRACT_MAX_PENDING_PER_KEY: int(1, 100_000).default(5),
  ...extractLimitVariables,
  GOOGLE_APPLICATION_CREDENTIALS: z.string().min(1).optional(),
  COVERCHECK_SHEETS_ROOT_URL: z.url().optional(),
  COVERCHECK_SHEETS_PER_MIN: int(1, 100_000).default(50),
  COVERCHECK_SHEETS_PER_SPREADSHEET_PER_MIN: int(1, 100_000).default(20),
  COVERCHECK_SHEETS_WINDOW_MS: int(100, 3_600_000).default(60_000),
  COVERCHECK_SHEETS_RETRY_MS: int(10, 3_600_000).default(5_000),
  COVERCHECK_SHEETS_TIMEOUT_MS: int(100, 600_000).default(30_000),
  COVERCHECK_SCHEDULE_LEASE_MS: int(500, 3_600_000).default(300_000),
  COVERCHECK_SCHEDULE_WORKERS: int(1, 64).default(2),
  COVERCHECK_SCHEDULE_PAUSE_AFTER: int(1, 100).default(SCHEDULE_PAUSE_AFTER_FAILURES),
  COVERCHECK_SHEETS_BINDING_RECHECK_MS: int(0, 86_400_000).default(600_000),
  COVERCHECK_SHEETS_BINDING_CHECKS_PER_MIN: int(1, 1_000_000).default(20),
  COVERCHECK_SHEETS_QUEUE_PER_KEY: int(1, 100_000).default(10),
  COVERCHECK_SHEETS_QUEUE_TOTAL: int(1, 1_000_000).default(100),
  COVERCHECK_SHEETS_WRITEBACK_WORKERS: int(1, 64).default(4),
  COVERCHECK_SHEETS_WRITEBACK_LEASE_MS: int(500, 3_600_000).default(120_000),
  COVERCHECK_DATASET_REFRESH: bool.default(false),
  COVERCHECK_DATASET_REFRESH_INTERVAL_MS: int(1000, 86_400_000).default(600_000),
  COVERCHECK_PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
  COVERCHECK_SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\/\S+$/, 'must be smtp://host:port or smtps://user:pass@host:port')
    .optional(),
  COVERCHECK_MAIL_FROM: z.string().min(3).default('Covercheck <no-reply@covercheck.invalid>'),
  COVERCHECK_MAIL_OUTBOX: z.string().min(1).default('data/outbox'),
  COVERCHECK_PORTAL_SECRET: z.string().min(32, 'must be at least 32 characters (e.g. openssl rand -hex 32)').optional(),
  COVERCHECK_PORTAL_PER_IP_PER_HOUR: int(1, 1_000_000).default(20),
  COVERCHECK_PORTAL_PER_ADDRESS_PER_DAY: int(1, 1_000_000).default(5),
  COVERCHECK_KEY_SWEEP_INTERVAL_MS: int(1000, 86_400_000).default(3_600_000),
  COVERCHECK_PORTAL: z
    .string()
    .regex(PORTAL_POLICY, 'must be open, test-only, off, or domains: with a comma-separated list (domains:example.com,example.org)')
    .default('open'),
  COVERCHECK_SHUTDOWN_MS: int(0, 3_600_000).default(30_000),
});

type Env = z.infer<typeof EnvSchema>;

/** Both or neither: one without the other is a half-done setting, not a choice to leave the source off. */
function fcaRegister(e: Env) {
  const email = e.COVERCHECK_FCA_API_EMAIL;
  const key = e.COVERCHECK_FCA_API_KEY;
  if (!email && !key) return null;
  if (!email || !key)
    throw new Error('COVERCHECK_FCA_API_EMAIL and COVERCHECK_FCA_API_KEY: set both to use the FCA register API, or neither');
  return {
    baseUrl: e.COVERCHECK_FCA_API_URL.replace(/\/+$/, ''),
    email,
    key,
    /** How long a found or not-found answer is reused; 0: never. */
    cacheTtlMs: e.COVERCHECK_FCA_CACHE_TTL_S * 1000,
    /** Deadline of one lookup (all its calls), queueing included; default the registry upstreams'. */
    timeoutMs: e.COVERCHECK_FCA_TIMEOUT_MS ?? e.COVERCHECK_REGISTRY_TIMEOUT_MS,
    /** Calls started per second, for the whole deployment when Redis is set. */
    perSecond: e.COVERCHECK_FCA_PER_SEC,
  };
}

function upstreams(raw: string): Partial<Record<(typeof COUNTRIES)[number], string>> {
  const out: Partial<Record<(typeof COUNTRIES)[number], string>> = {};
  for (const part of raw
    .split(/[;,]/)
    .map((s) => s.trim())
    .filter(Boolean)) {
    const m = /^([A-Za-z]{2})=(https?:\/\/\S+)$/.exec(part);
    const country = m ? countryFromInput(m[1]!) : null;
    if (!m || !country) throw new Error(`COVERCHECK_REGISTRY_UPSTREAMS: "${part}" is not COUNTRY=URL (${COUNTRIES.join(', ')})`);
    out[country] = m[2]!.replace(/\/+$/, '');
  }
  return out;
}

function bodyBudget(e: Env) {
  if (e.COVERCHECK_BODY_BUDGET_PER_CLIENT_MB > e.COVERCHECK_BODY_BUDGET_MB)
    throw new Error('COVERCHECK_BODY_BUDGET_PER_CLIENT_MB: must not be more than COVERCHECK_BODY_BUDGET_MB');
  return { totalBytes: e.COVERCHECK_BODY_BUDGET_MB * MB, perClientBytes: e.COVERCHECK_BODY_BUDGET_PER_CLIENT_MB * MB };
}

/** limiterIdleMs is optional: a caller that builds these settings itself may leave it to limiters.ts's default. */
function redis(
  e: Env,
): { url: string; prefix: string; /** A shared limiter's keys expire after this long unused. */ limiterIdleMs?: number } | null {
  return e.COVERCHECK_REDIS_URL
    ? { url: e.COVERCHECK_REDIS_URL, prefix: e.COVERCHECK_REDIS_PREFIX, limiterIdleMs: e.COVERCHECK_REDIS_LIMITER_IDLE_MS }
    : null;
}

/**
 * Who the key portal serves: anyone (`open`), test keys only (`test-only`), e-mail addresses in the
 * listed domains only (`domains`, each matched exactly and case-insensitively), or nobody (`off`).
 */
export type PortalPolicy = { kind: 'open' } | { kind: 'test-only' } | { kind: 'off' } | { kind: 'domains'; domains: string[] };

function portalPolicy(raw: string): PortalPolicy {
  if (raw === 'open' || raw === 'test-only' || raw === 'off') return { kind: raw };
  const domains = raw
    .slice('domains:'.length)
    .split(',')
    .map((d) => d.trim().toLowerCase());
  return { kind: 'domains', domains: [...new Set(domains)] };
}

/** Who may read GET /metrics (metrics/exposure.ts); null: metrics off. A token without `token` mode is a half-done setting. */
function metrics(e: Env): { mode: 'loopback' } | { mode: 'token'; token: string } | null {
  const token = e.COVERCHECK_METRICS_TOKEN;
  if (e.COVERCHECK_METRICS === 'token') {
    if (!token) throw new Error('COVERCHECK_METRICS=token needs COVERCHECK_METRICS_TOKEN (e.g. openssl rand -hex 32)');
    return { mode: 'token', token };
  }
  if (token) throw new Error('COVERCHECK_METRICS_TOKEN is set but COVERCHECK_METRICS is not token: set COVERCHECK_METRICS=token to use it');
  return e.COVERCHECK_METRICS === 'off' ? null : { mode: 'loopback' };
}

/** Express `trust proxy` value: false, true, a hop count or a list of addresses. */
function trustProxy(raw: string): boolean | number | string {
  if (raw === 'false' || raw === '') return false;
  if (raw === 'true') return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  return raw;
}

/** The variables shaped as the code uses them. A rule across variables throws its own message, naming them. */
const ConfigSchema = EnvSchema.transform((e) => ({
  port: e.PORT,
  host: e.HOST,
  databasePath: e.COVERCHECK_DB,
  /** PostgreSQL connection URL; when set it replaces the SQLite file (`databasePath` is then unused). */
  databaseUrl: e.COVERCHECK_DATABASE_URL,
  /** PostgreSQL connections per instance. */
  databasePoolSize: e.COVERCHECK_DATABASE_POOL,
  /** SQLite: how often the WAL is synced in the background (ms); 0: never, only by SQLite's checkpoints. */
  sqliteWalSyncMs: e.COVERCHECK_SQLITE_WAL_SYNC_MS,
  /**
   * Redis shared by every instance: clustered bottleneck limiters (registry upstreams, webhook
   * hosts, Sheets quotas) and the inbound rate limits. Null: limits are kept per process.
   */
  redis: redis(e),
  demo: e.COVERCHECK_DEMO,
  sandboxKey: e.COVERCHECK_SANDBOX_KEY,
  logLevel: e.COVERCHECK_LOG_LEVEL,
  /** How long a stop may take (main.ts, start.ts): work in hand finishes within it, what still runs in its last quarter (at most 2 s) is handed back. */
  shutdownMs: e.COVERCHECK_SHUTDOWN_MS,
  rateLimit: { perKeyPerMinute: e.COVERCHECK_RATE_LIMIT_KEY_PER_MIN, perIpPerMinute: e.COVERCHECK_RATE_LIMIT_IP_PER_MIN },
  trustProxy: trustProxy(e.COVERCHECK_TRUST_PROXY),
  /** GET /metrics's protection, null when metrics are off (nothing is then recorded either). */
  metrics: metrics(e),
  jsonLimitBytes: e.COVERCHECK_JSON_LIMIT_KB * 1024,
  /** Bytes of request bodies held in memory at once, in all and per client (http/body-budget.ts). */
  bodyBudget: bodyBudget(e),
  /** Documents kept in the store (jobs/document-storage.ts). */
  documents: {
    /** Bytes of documents one key may hold: a live key, a sandbox key. */
    quotaBytes: { live: e.COVERCHECK_DOCUMENT_QUOTA_MB * MB, sandbox: e.COVERCHECK_DOCUMENT_QUOTA_SANDBOX_MB * MB },
    /** A folder on the store's filesystem whose free space is checked; null (PostgreSQL, unless set): no disk guard. */
    diskGuardPath: e.COVERCHECK_DISK_GUARD_PATH ?? (e.COVERCHECK_DATABASE_URL ? null : path.dirname(path.resolve(e.COVERCHECK_DB))),
    /** Free bytes kept on that filesystem: a document that would leave less is refused. */
    diskReserveBytes: e.COVERCHECK_DISK_RESERVE_MB * MB,
  },
  /** What is removed when (jobs/retention.ts, docs/personal-data.md). */
  retention: {
    /** An uploaded document is removed this long after its job finished (complete or failed). */
    documentMs: e.COVERCHECK_DOCUMENT_RETENTION_HOURS * 3_600_000,
    /** A finished job or batch (result, webhook deliveries, write-backs) and an Idempotency-Key's stored answer, this long after. */
    resultMs: e.COVERCHECK_RESULT_RETENTION_DAYS * 86_400_000,
    resultDays: e.COVERCHECK_RESULT_RETENTION_DAYS,
    /** How often the sweep runs (also once at start). */
    intervalMs: e.COVERCHECK_RETENTION_INTERVAL_MS,
  },
  /** Watch runs (watches/, docs/monitoring.md). */
  watches: {
    /** Watches run at once by this instance; 0: this instance runs none. */
    workers: e.COVERCHECK_WATCH_WORKERS,
    /** How long a run holds its watch between renewals (renewed every third of it); a dead holder's run is carried on after it. */
    leaseMs: e.COVERCHECK_WATCH_LEASE_MS,
    /** Policies committed per transaction: what a crash may make the next holder check again. */
    chunkSize: e.COVERCHECK_WATCH_CHUNK,
    /** Verifications of a chunk in flight at once. */
    concurrency: e.COVERCHECK_WATCH_CONCURRENCY,
    /** How often the reference-data version is looked at for register-driven re-checks (also at start). */
    recheckIntervalMs: e.COVERCHECK_WATCH_RECHECK_INTERVAL_MS,
  },
  /**
   * Bounds on the HTTP server's connections (docs/connection-limits.md). maxTotal null: the
   * process's descriptor limit less fdReserve; maxPerAddress null: a default (http/connection-limits.ts).
   */
  connections: {
    maxTotal: e.COVERCHECK_MAX_CONNECTIONS ?? null,
    maxPerAddress: e.COVERCHECK_MAX_CONNECTIONS_PER_IP ?? null,
    fdReserve: e.COVERCHECK_FD_RESERVE,
    /** A connection that has sent no byte after this long is closed. */
    idleMs: e.COVERCHECK_CONNECTION_IDLE_MS,
    /** node's headersTimeout, requestTimeout and keepAliveTimeout. */
    headersTimeoutMs: e.COVERCHECK_HEADERS_TIMEOUT_MS,
    requestTimeoutMs: e.COVERCHECK_REQUEST_TIMEOUT_MS,
    keepAliveTimeoutMs: e.COVERCHECK_KEEP_ALIVE_TIMEOUT_MS,
  },
  queue: {
    workers: e.COVERCHECK_WORKERS,
    batchConcurrency: e.COVERCHECK_BATCH_CONCURRENCY,
    leaseMs: e.COVERCHECK_JOB_LEASE_MS,
    pollMs: e.COVERCHECK_QUEUE_POLL_MS,
  },
  webhooks: {
    timeoutMs: e.COVERCHECK_WEBHOOK_TIMEOUT_MS,
    concurrency: e.COVERCHECK_WEBHOOK_CONCURRENCY,
    perHostConcurrency: e.COVERCHECK_WEBHOOK_HOST_CONCURRENCY,
    perHostMinTimeMs: e.COVERCHECK_WEBHOOK_HOST_MIN_TIME_MS,
    /** Leased deliveries waiting in memory for a host's slot; more are postponed to their lease's end. */
    perHostQueue: e.COVERCHECK_WEBHOOK_HOST_QUEUE,
    /** Consecutive failed attempts that open a host's breaker (0: none), and how long it stays open. */
    breakerFailures: e.COVERCHECK_WEBHOOK_BREAKER_FAILURES,
    breakerCooldownMs: e.COVERCHECK_WEBHOOK_BREAKER_COOLDOWN_MS,
    retryScale: e.COVERCHECK_WEBHOOK_RETRY_SCALE,
    /** Test and local setups only: lets webhooks reach private and loopback addresses. */
    allowPrivate: e.COVERCHECK_WEBHOOK_ALLOW_PRIVATE,
    /** Extra trusted CA for webhook TLS (a private PKI, or a test's self-signed certificate). */
    caFile: e.COVERCHECK_WEBHOOK_CA_FILE,
  },
  extraction: {
    /** Worker threads for PDF parsing and OCR; 0 turns extraction off. Default: cores - 1, at least 1. */
    threads: e.COVERCHECK_EXTRACT_THREADS ?? Math.max(1, os.availableParallelism() - 1),
    /** Pending extraction jobs above which uploads get 503 with Retry-After. */
    maxPending: e.COVERCHECK_EXTRACT_MAX_PENDING,
    /** Pending jobs carrying a document one key may have; above it its uploads get 429 with Retry-After. */
    maxPendingPerKey: e.COVERCHECK_EXTRACT_MAX_PENDING_PER_KEY,
    /** The part of maxPending sandbox keys may fill together, in percent: free keys can't take every place. */
    sandboxSharePct: e.COVERCHECK_EXTRACT_SANDBOX_SHARE_PCT,
    /** Documents one key may have in the readers at once (jobs/lanes.ts): live keys, sandbox keys. */
    readingPerKey: { live: e.COVERCHECK_EXTRACT_READING_PER_KEY, sandbox: e.COVERCHECK_EXTRACT_READING_PER_SANDBOX_KEY },
    /** The budget of one document (EXTRACT_LIMITS). */
    limits: Object.fromEntries(EXTRACT_LIMITS.map((r) => [r.key, limitValue(r, e[r.env])])) as ExtractLimits,
  },
  sheets: {
    /** Service-account key file; without it sheet targets and schedules are refused. */
    credentialsFile: e.GOOGLE_APPLICATION_CREDENTIALS,
    /** Sheets API base URL (tests point it at a local server). */
    rootUrl: e.COVERCHECK_SHEETS_ROOT_URL,
    /** waitingPerKey, waitingTotal: Sheets calls that may wait for their turn, of one key and in all (sheets/limiter.ts). */
    limits: {
      perProject: e.COVERCHECK_SHEETS_PER_MIN,
      perSpreadsheet: e.COVERCHECK_SHEETS_PER_SPREADSHEET_PER_MIN,
      windowMs: e.COVERCHECK_SHEETS_WINDOW_MS,
      waitingPerKey: e.COVERCHECK_SHEETS_QUEUE_PER_KEY,
      waitingTotal: e.COVERCHECK_SHEETS_QUEUE_TOTAL,
    },
    retryBaseMs: e.COVERCHECK_SHEETS_RETRY_MS,
    /** Write-back loops writing at once, each for a different key (sheets/processor.ts). */
    writebackWorkers: e.COVERCHECK_SHEETS_WRITEBACK_WORKERS,
    /** How long a write-back loop holds a spreadsheet's write-backs between renewals (renewed every third of it). */
    writebackLeaseMs: e.COVERCHECK_SHEETS_WRITEBACK_LEASE_MS,
    /** One Sheets API or token request's deadline; a request past it is retried like a 5xx. */
    timeoutMs: e.COVERCHECK_SHEETS_TIMEOUT_MS,
    scheduleLeaseMs: e.COVERCHECK_SCHEDULE_LEASE_MS,
    /** Schedule runs at once, per instance. */
    scheduleWorkers: e.COVERCHECK_SCHEDULE_WORKERS,
    /** A connector schedule pauses itself after this many failed runs in a row. */
    schedulePauseAfter: e.COVERCHECK_SCHEDULE_PAUSE_AFTER,
    /** A binding verified longer ago than this is checked again through the Sheets API before it is used (docs/sheets-binding.md). */
    bindingRecheckMs: e.COVERCHECK_SHEETS_BINDING_RECHECK_MS,
    /** Binding checks one key may ask for in a minute (verify, submissions naming a stale binding). */
    bindingChecksPerMinute: e.COVERCHECK_SHEETS_BINDING_CHECKS_PER_MIN,
  },
  datasets: {
    /** Fetch refresh sources on their cadence (off by default: the embedded demo makes no outbound calls). */
    refresh: e.COVERCHECK_DATASET_REFRESH,
    refreshIntervalMs: e.COVERCHECK_DATASET_REFRESH_INTERVAL_MS,
  },
  portal: {
    /** Base URL put in activation links; unset: http://localhost:PORT. Never taken from a request's Host header. */
    publicUrl: (e.COVERCHECK_PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ''),
    /** SMTP server URL for activation mails; unset: mails are written as .eml files to `outbox`. */
    smtpUrl: e.COVERCHECK_SMTP_URL,
    mailFrom: e.COVERCHECK_MAIL_FROM,
    outbox: e.COVERCHECK_MAIL_OUTBOX,
    /** HMAC secret for the forms' CSRF tokens; unset: random per start (open forms then need a reload). */
    secret: e.COVERCHECK_PORTAL_SECRET,
    /** Key requests (and activations) per client IP per hour. */
    perIpPerHour: e.COVERCHECK_PORTAL_PER_IP_PER_HOUR,
    /** Key requests per e-mail address or name per day. */
    perAddressPerDay: e.COVERCHECK_PORTAL_PER_ADDRESS_PER_DAY,
    /** How often the unused-key sweep runs (also once at start). */
    sweepIntervalMs: e.COVERCHECK_KEY_SWEEP_INTERVAL_MS,
    policy: portalPolicy(e.COVERCHECK_PORTAL),
  },
  registry: {
    timeoutMs: e.COVERCHECK_REGISTRY_TIMEOUT_MS,
    maxConcurrent: e.COVERCHECK_REGISTRY_MAX_CONCURRENT,
    minTimeMs: e.COVERCHECK_REGISTRY_MIN_TIME_MS,
    /** Calls started per second to one upstream (across instances with Redis); null: no quota. */
    perSecond: e.COVERCHECK_REGISTRY_PER_SEC ?? null,
    /** Country code -> base URL of an HTTP registry upstream. */
    upstreams: upstreams(e.COVERCHECK_REGISTRY_UPSTREAMS),
  },
  /**
   * The FCA Financial Services Register API as an online source for the UK insurer check
   * (insurers/online/); null without the operator's API e-mail and key. Concurrency and spacing are
   * the registry upstreams' (`registry`).
   */
  fcaRegister: fcaRegister(e),
}));

export type Config = z.output<typeof ConfigSchema>;

/** Throws one readable error listing every bad variable (a rule across variables: its own message). */
export function loadConfig(env: Record<string, string | undefined> = process.env, overrides: Partial<Config> = {}): Config {
  const parsed = ConfigSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return { ...parsed.data, ...overrides };
}
