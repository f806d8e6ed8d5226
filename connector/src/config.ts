/** Reads the environment once into a typed, validated config; nothing else reads process.env. */
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { COUNTRIES, countryFromInput } from '../../shared/packs/index.js';
import { SCHEDULE_PAUSE_AFTER_FAILURES } from '../../shared/sheets.js';

/** The budget one document may spend in the extractor; extract/limits.ts checks it. */
export interface ExtractLimits {
  /** Pages per document. */
  maxPages: number;
  /** Area of one page in pt² (1 pt = 1/72 inch), after its UserUnit. */
  maxPageAreaPt2: number;
  /** Area of all pages together, in pt². */
  maxTotalAreaPt2: number;
  /** Pixels of one page rendered for OCR: above it the page is rendered at a lower resolution. */
  maxPagePixels: number;
  /** Pixels rendered for OCR over the whole document. */
  maxTotalPixels: number;
  /** Pixels of one image in the document (width x height as its dictionary states them). */
  maxImagePixels: number;
  /** Pixels of all the document's images together. */
  maxTotalImagePixels: number;
  /** Bytes the document's compressed streams other than images (page contents, fonts, forms) decode to, all together. */
  maxStreamBytes: number;
  /** Content operators the pages draw with every form (XObject) they draw expanded, all pages together (extract/xobject-fanout.ts). */
  maxExpandedOps: number;
  /**
   * Processor time the document's thread may spend on it (pdf.js parsing and drawing; OCR runs in
   * tesseract's own thread and is bounded by the pixel limits). Processor time, not wall time: the
   * extraction process runs at the lowest priority (priority.ts) and waits while anything else
   * runs, and that wait is not the document's.
   */
  cpuMs: number;
  /** Wall time for one document from the moment a thread starts it: the backstop for one that hangs without using the processor. */
  wallMs: number;
  /** Resident memory of the extraction process; above it the process is ended. */
  memoryMb: number;
}

/**
 * The budget of one document in the extractor (docs/document-limits.md has why each value). Every
 * PDF of the test corpus and of the shared reference documents (102) stays far inside them: at
 * most 2 pages, 1.0 million pt² a page, 4.4 million pixels rendered, images of 4.3 million pixels,
 * 83 KB of decoded streams; read one after another in one extraction process, the slowest took
 * 6.9 s on a loaded machine and the process peaked at 326 MB.
 */
export const EXTRACT_LIMIT_DEFAULTS: ExtractLimits = {
  maxPages: 20,
  // 10 million pt² is A0 (8.0 million) with room to spare, and an A4 scan at 300 dpi that an image
  // tool wrote at one point per pixel (2480 x 3508 pt); the 5000 x 5000 pt page of issue 17 is 25 million.
  maxPageAreaPt2: 10_000_000,
  maxTotalAreaPt2: 40_000_000,
  // An A2 page at the OCR resolution of 150 dpi; a larger page is rendered at a lower resolution.
  maxPagePixels: 9_000_000,
  // 20 A4 pages at 150 dpi are 43.5 million.
  maxTotalPixels: 50_000_000,
  // An A4 page scanned at 600 dpi is 34.8 million.
  maxImagePixels: 40_000_000,
  // 20 A4 pages scanned at 300 dpi are 174 million.
  maxTotalImagePixels: 200_000_000,
  maxStreamBytes: 64 * 1024 * 1024,
  // 150 times the most a real document draws (1,673); at the dearest cost measured in pdf.js (45 µs
  // an operator, forms drawing forms; 4-10 µs for plain text and paths) some 11 s of processor time.
  maxExpandedOps: 250_000,
  cpuMs: 30_000,
  wallMs: 300_000,
  memoryMb: 1536,
};

/** The HTTP server's connection bounds and timeouts (docs/connection-limits.md has why these). */
export const CONNECTION_DEFAULTS: Config['connections'] = {
  maxTotal: null,
  maxPerAddress: null,
  fdReserve: 1024,
  idleMs: 10_000,
  headersTimeoutMs: 20_000,
  requestTimeoutMs: 300_000,
  keepAliveTimeoutMs: 5_000,
};

const bool = z
  .enum(['1', '0', 'true', 'false', 'yes', 'no'])
  .transform((v) => v === '1' || v === 'true' || v === 'yes');
const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

const EnvSchema = z.object({
  PORT: int(0, 65535).default(8080),
  HOST: z.string().min(1).default('0.0.0.0'),
  COVERCHECK_DB: z.string().min(1).default('data/covercheck.db'),
  COVERCHECK_DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\/\S+$/, 'must be postgres://user:password@host:port/database').optional(),
  COVERCHECK_DATABASE_POOL: int(1, 200).default(10),
  COVERCHECK_SQLITE_WAL_SYNC_MS: int(0, 60_000).default(20),
  COVERCHECK_REDIS_URL: z.string().regex(/^rediss?:\/\/\S+$/, 'must be redis://[:password@]host:port[/db] or rediss://...').optional(),
  COVERCHECK_REDIS_PREFIX: z.string().regex(/^[A-Za-z0-9_.:-]{1,64}$/, 'letters, digits and _ . : - only').default('covercheck'),
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
  COVERCHECK_JSON_LIMIT_KB: int(1, 1024).default(64),
  // A share must hold the largest body a route takes (an async verification's 18.7 MB of base64).
  COVERCHECK_BODY_BUDGET_MB: int(20, 1_000_000).default(256),
  COVERCHECK_BODY_BUDGET_PER_CLIENT_MB: int(20, 1_000_000).default(64),
  COVERCHECK_DOCUMENT_QUOTA_MB: int(1, 1e9).default(10_240),
  COVERCHECK_DOCUMENT_QUOTA_SANDBOX_MB: int(1, 1e9).default(256),
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
  COVERCHECK_EXTRACT_MAX_PAGES: int(1, 10_000).default(EXTRACT_LIMIT_DEFAULTS.maxPages),
  COVERCHECK_EXTRACT_MAX_PAGE_AREA_PT2: int(10_000, 1e12).default(EXTRACT_LIMIT_DEFAULTS.maxPageAreaPt2),
  COVERCHECK_EXTRACT_MAX_TOTAL_AREA_PT2: int(10_000, 1e13).default(EXTRACT_LIMIT_DEFAULTS.maxTotalAreaPt2),
  COVERCHECK_EXTRACT_MAX_PAGE_PIXELS: int(10_000, 1e10).default(EXTRACT_LIMIT_DEFAULTS.maxPagePixels),
  COVERCHECK_EXTRACT_MAX_TOTAL_PIXELS: int(10_000, 1e11).default(EXTRACT_LIMIT_DEFAULTS.maxTotalPixels),
  COVERCHECK_EXTRACT_MAX_IMAGE_PIXELS: int(10_000, 1e10).default(EXTRACT_LIMIT_DEFAULTS.maxImagePixels),
  COVERCHECK_EXTRACT_MAX_TOTAL_IMAGE_PIXELS: int(10_000, 1e11).default(EXTRACT_LIMIT_DEFAULTS.maxTotalImagePixels),
  COVERCHECK_EXTRACT_MAX_STREAM_MB: int(1, 100_000).default(EXTRACT_LIMIT_DEFAULTS.maxStreamBytes / (1024 * 1024)),
  COVERCHECK_EXTRACT_MAX_EXPANDED_OPS: int(1000, 1e15).default(EXTRACT_LIMIT_DEFAULTS.maxExpandedOps),
  COVERCHECK_EXTRACT_CPU_MS: int(1000, 3_600_000).default(EXTRACT_LIMIT_DEFAULTS.cpuMs),
  COVERCHECK_EXTRACT_WALL_MS: int(1000, 86_400_000).default(EXTRACT_LIMIT_DEFAULTS.wallMs),
  COVERCHECK_EXTRACT_MEMORY_MB: int(128, 1_000_000).default(EXTRACT_LIMIT_DEFAULTS.memoryMb),
  GOOGLE_APPLICATION_CREDENTIALS: z.string().min(1).optional(),
  COVERCHECK_SHEETS_ROOT_URL: z.url().optional(),
  COVERCHECK_SHEETS_PER_MIN: int(1, 100_000).default(50),
  COVERCHECK_SHEETS_PER_SPREADSHEET_PER_MIN: int(1, 100_000).default(20),
  COVERCHECK_SHEETS_WINDOW_MS: int(100, 3_600_000).default(60_000),
  COVERCHECK_SHEETS_RETRY_MS: int(10, 3_600_000).default(5_000),
  COVERCHECK_SHEETS_TIMEOUT_MS: int(100, 600_000).default(30_000),
  COVERCHECK_SCHEDULE_LEASE_MS: int(500, 3_600_000).default(300_000),
  COVERCHECK_SCHEDULE_PAUSE_AFTER: int(1, 100).default(SCHEDULE_PAUSE_AFTER_FAILURES),
  COVERCHECK_SHEETS_BINDING_RECHECK_MS: int(0, 86_400_000).default(600_000),
  COVERCHECK_SHEETS_BINDING_CHECKS_PER_MIN: int(1, 1_000_000).default(20),
  COVERCHECK_SHEETS_QUEUE_PER_KEY: int(1, 100_000).default(10),
  COVERCHECK_SHEETS_QUEUE_TOTAL: int(1, 1_000_000).default(100),
  COVERCHECK_SHEETS_WRITEBACK_WORKERS: int(1, 64).default(4),
  COVERCHECK_DATASET_REFRESH: bool.default(false),
  COVERCHECK_DATASET_REFRESH_INTERVAL_MS: int(1000, 86_400_000).default(600_000),
  COVERCHECK_PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
  COVERCHECK_SMTP_URL: z.string().regex(/^smtps?:\/\/\S+$/, 'must be smtp://host:port or smtps://user:pass@host:port').optional(),
  COVERCHECK_MAIL_FROM: z.string().min(3).default('Covercheck <no-reply@covercheck.invalid>'),
  COVERCHECK_MAIL_OUTBOX: z.string().min(1).default('data/outbox'),
  COVERCHECK_PORTAL_SECRET: z.string().min(32, 'must be at least 32 characters (e.g. openssl rand -hex 32)').optional(),
  COVERCHECK_PORTAL_PER_IP_PER_HOUR: int(1, 1_000_000).default(20),
  COVERCHECK_PORTAL_PER_ADDRESS_PER_DAY: int(1, 1_000_000).default(5),
  COVERCHECK_KEY_SWEEP_INTERVAL_MS: int(1000, 86_400_000).default(3_600_000),
});

export interface Config {
  port: number;
  host: string;
  databasePath: string;
  /** PostgreSQL connection URL; when set it replaces the SQLite file (`databasePath` is then unused). */
  databaseUrl: string | undefined;
  /** PostgreSQL connections per instance. */
  databasePoolSize: number;
  /** SQLite: how often the WAL is synced in the background (ms); 0: never, only by SQLite's checkpoints. */
  sqliteWalSyncMs: number;
  /**
   * Redis shared by every instance: clustered bottleneck limiters (registry upstreams, webhook
   * hosts, Sheets quotas) and the inbound rate limits. Unset: limits are kept per process.
   */
  redis: { url: string; prefix: string; /** A shared limiter's keys expire after this long unused (limiters.ts's default when absent). */ limiterIdleMs?: number } | null;
  demo: boolean;
  sandboxKey: string | undefined;
  logLevel: z.infer<typeof EnvSchema>['COVERCHECK_LOG_LEVEL'];
  rateLimit: { perKeyPerMinute: number; perIpPerMinute: number };
  /** Express `trust proxy` value: false, true, a hop count or a list of addresses. */
  trustProxy: boolean | number | string;
  jsonLimitBytes: number;
  /** Bytes of request bodies held in memory at once, in all and per client (http/body-budget.ts). */
  bodyBudget: { totalBytes: number; perClientBytes: number };
  /** Documents kept in the store (jobs/document-storage.ts). */
  documents: {
    /** Bytes of documents one key may hold: a live key, a sandbox key. */
    quotaBytes: { live: number; sandbox: number };
    /** A folder on the store's filesystem whose free space is checked; null (PostgreSQL, unless set): no disk guard. */
    diskGuardPath: string | null;
    /** Free bytes kept on that filesystem: a document that would leave less is refused. */
    diskReserveBytes: number;
  };
  /**
   * Bounds on the HTTP server's connections (docs/connection-limits.md). maxTotal null: the
   * process's descriptor limit less fdReserve; maxPerAddress null: a default (http/connection-limits.ts).
   */
  connections: {
    maxTotal: number | null;
    maxPerAddress: number | null;
    fdReserve: number;
    /** A connection that has sent no byte after this long is closed. */
    idleMs: number;
    /** node's headersTimeout, requestTimeout and keepAliveTimeout. */
    headersTimeoutMs: number;
    requestTimeoutMs: number;
    keepAliveTimeoutMs: number;
  };
  queue: { workers: number; batchConcurrency: number; leaseMs: number; pollMs: number };
  webhooks: {
    timeoutMs: number;
    concurrency: number;
    perHostConcurrency: number;
    perHostMinTimeMs: number;
    /** Leased deliveries waiting in memory for a host's slot; more are postponed to their lease's end. */
    perHostQueue: number;
    /** Consecutive failed attempts that open a host's breaker (0: none), and how long it stays open. */
    breakerFailures: number;
    breakerCooldownMs: number;
    retryScale: number;
    /** Test and local setups only: lets webhooks reach private and loopback addresses. */
    allowPrivate: boolean;
    /** Extra trusted CA for webhook TLS (a private PKI, or a test's self-signed certificate). */
    caFile: string | undefined;
  };
  extraction: {
    /** Worker threads for PDF parsing and OCR; 0 turns extraction off. Default: cores - 1, at least 1. */
    threads: number;
    /** Pending extraction jobs above which uploads get 503 with Retry-After. */
    maxPending: number;
    /** Pending jobs carrying a document one key may have; above it its uploads get 429 with Retry-After. */
    maxPendingPerKey: number;
    /** The part of maxPending sandbox keys may fill together, in percent: free keys can't take every place. */
    sandboxSharePct: number;
    /** Documents one key may have in the readers at once (jobs/lanes.ts): live keys, sandbox keys. */
    readingPerKey: { live: number; sandbox: number };
    /** The budget of one document (docs/document-limits.md). */
    limits: ExtractLimits;
  };
  sheets: {
    /** Service-account key file; without it sheet targets and schedules are refused. */
    credentialsFile: string | undefined;
    /** Sheets API base URL (tests point it at a local server). */
    rootUrl: string | undefined;
    /** waitingPerKey, waitingTotal: Sheets calls that may wait for their turn, of one key and in all (sheets/limiter.ts). */
    limits: { perProject: number; perSpreadsheet: number; windowMs: number; waitingPerKey: number; waitingTotal: number };
    retryBaseMs: number;
    /** Write-back loops writing at once, each for a different key (sheets/processor.ts). */
    writebackWorkers: number;
    /** One Sheets API or token request's deadline; a request past it is retried like a 5xx. */
    timeoutMs: number;
    scheduleLeaseMs: number;
    /** A connector schedule pauses itself after this many failed runs in a row. */
    schedulePauseAfter: number;
    /** A binding verified longer ago than this is checked again through the Sheets API before it is used (docs/sheets-binding.md). */
    bindingRecheckMs: number;
    /** Binding checks one key may ask for in a minute (verify, submissions naming a stale binding). */
    bindingChecksPerMinute: number;
  };
  datasets: {
    /** Fetch refresh sources on their cadence (off by default: the embedded demo makes no outbound calls). */
    refresh: boolean;
    refreshIntervalMs: number;
  };
  portal: {
    /** Base URL put in activation links; unset: http://localhost:PORT. Never taken from a request's Host header. */
    publicUrl: string;
    /** SMTP server URL for activation mails; unset: mails are written as .eml files to `outbox`. */
    smtpUrl: string | undefined;
    mailFrom: string;
    outbox: string;
    /** HMAC secret for the forms' CSRF tokens; unset: random per start (open forms then need a reload). */
    secret: string | undefined;
    /** Key requests (and activations) per client IP per hour. */
    perIpPerHour: number;
    /** Key requests per e-mail address or name per day. */
    perAddressPerDay: number;
    /** How often the unused-key sweep runs (also once at start). */
    sweepIntervalMs: number;
  };
  registry: {
    timeoutMs: number;
    maxConcurrent: number;
    minTimeMs: number;
    /** Calls started per second to one upstream (across instances with Redis); null: no quota. */
    perSecond: number | null;
    /** Country code -> base URL of an HTTP registry upstream. */
    upstreams: Partial<Record<(typeof COUNTRIES)[number], string>>;
  };
  /**
   * The FCA Financial Services Register API as an online source for the UK insurer check
   * (insurers/online/); null without the operator's API e-mail and key. Concurrency and spacing are
   * the registry upstreams' (`registry`).
   */
  fcaRegister: {
    baseUrl: string;
    email: string;
    key: string;
    /** How long a found or not-found answer is reused; 0: never. */
    cacheTtlMs: number;
    /** Deadline of one lookup (all its calls), queueing included; default the registry upstreams'. */
    timeoutMs: number;
    /** Calls started per second, for the whole deployment when Redis is set. */
    perSecond: number;
  } | null;
}

/** Both or neither: one without the other is a half-done setting, not a choice to leave the source off. */
function parseFcaRegister(e: z.infer<typeof EnvSchema>): Config['fcaRegister'] {
  const email = e.COVERCHECK_FCA_API_EMAIL;
  const key = e.COVERCHECK_FCA_API_KEY;
  if (!email && !key) return null;
  if (!email || !key) throw new Error('COVERCHECK_FCA_API_EMAIL and COVERCHECK_FCA_API_KEY: set both to use the FCA register API, or neither');
  return {
    baseUrl: e.COVERCHECK_FCA_API_URL.replace(/\/+$/, ''),
    email,
    key,
    cacheTtlMs: e.COVERCHECK_FCA_CACHE_TTL_S * 1000,
    timeoutMs: e.COVERCHECK_FCA_TIMEOUT_MS ?? e.COVERCHECK_REGISTRY_TIMEOUT_MS,
    perSecond: e.COVERCHECK_FCA_PER_SEC,
  };
}

function parseUpstreams(raw: string): Config['registry']['upstreams'] {
  const out: Config['registry']['upstreams'] = {};
  for (const part of raw.split(/[;,]/).map((s) => s.trim()).filter(Boolean)) {
    const m = /^([A-Za-z]{2})=(https?:\/\/\S+)$/.exec(part);
    const country = m ? countryFromInput(m[1]!) : null;
    if (!m || !country) throw new Error(`COVERCHECK_REGISTRY_UPSTREAMS: "${part}" is not COUNTRY=URL (${COUNTRIES.join(', ')})`);
    out[country] = m[2]!.replace(/\/+$/, '');
  }
  return out;
}

const MB = 1024 * 1024;

function parseBodyBudget(e: z.infer<typeof EnvSchema>): Config['bodyBudget'] {
  if (e.COVERCHECK_BODY_BUDGET_PER_CLIENT_MB > e.COVERCHECK_BODY_BUDGET_MB) throw new Error('COVERCHECK_BODY_BUDGET_PER_CLIENT_MB: must not be more than COVERCHECK_BODY_BUDGET_MB');
  return { totalBytes: e.COVERCHECK_BODY_BUDGET_MB * MB, perClientBytes: e.COVERCHECK_BODY_BUDGET_PER_CLIENT_MB * MB };
}

function parseTrustProxy(raw: string): Config['trustProxy'] {
  if (raw === 'false' || raw === '') return false;
  if (raw === 'true') return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  return raw;
}

/** Throws one readable error listing every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env, overrides: Partial<Config> = {}): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  return {
    port: e.PORT,
    host: e.HOST,
    databasePath: e.COVERCHECK_DB,
    databaseUrl: e.COVERCHECK_DATABASE_URL,
    databasePoolSize: e.COVERCHECK_DATABASE_POOL,
    sqliteWalSyncMs: e.COVERCHECK_SQLITE_WAL_SYNC_MS,
    redis: e.COVERCHECK_REDIS_URL ? { url: e.COVERCHECK_REDIS_URL, prefix: e.COVERCHECK_REDIS_PREFIX, limiterIdleMs: e.COVERCHECK_REDIS_LIMITER_IDLE_MS } : null,
    demo: e.COVERCHECK_DEMO,
    sandboxKey: e.COVERCHECK_SANDBOX_KEY,
    logLevel: e.COVERCHECK_LOG_LEVEL,
    rateLimit: { perKeyPerMinute: e.COVERCHECK_RATE_LIMIT_KEY_PER_MIN, perIpPerMinute: e.COVERCHECK_RATE_LIMIT_IP_PER_MIN },
    trustProxy: parseTrustProxy(e.COVERCHECK_TRUST_PROXY),
    jsonLimitBytes: e.COVERCHECK_JSON_LIMIT_KB * 1024,
    bodyBudget: parseBodyBudget(e),
    documents: {
      quotaBytes: { live: e.COVERCHECK_DOCUMENT_QUOTA_MB * MB, sandbox: e.COVERCHECK_DOCUMENT_QUOTA_SANDBOX_MB * MB },
      diskGuardPath: e.COVERCHECK_DISK_GUARD_PATH ?? (e.COVERCHECK_DATABASE_URL ? null : path.dirname(path.resolve(e.COVERCHECK_DB))),
      diskReserveBytes: e.COVERCHECK_DISK_RESERVE_MB * MB,
    },
    connections: {
      maxTotal: e.COVERCHECK_MAX_CONNECTIONS ?? null,
      maxPerAddress: e.COVERCHECK_MAX_CONNECTIONS_PER_IP ?? null,
      fdReserve: e.COVERCHECK_FD_RESERVE,
      idleMs: e.COVERCHECK_CONNECTION_IDLE_MS,
      headersTimeoutMs: e.COVERCHECK_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: e.COVERCHECK_REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: e.COVERCHECK_KEEP_ALIVE_TIMEOUT_MS,
    },
    queue: { workers: e.COVERCHECK_WORKERS, batchConcurrency: e.COVERCHECK_BATCH_CONCURRENCY, leaseMs: e.COVERCHECK_JOB_LEASE_MS, pollMs: e.COVERCHECK_QUEUE_POLL_MS },
    webhooks: {
      timeoutMs: e.COVERCHECK_WEBHOOK_TIMEOUT_MS,
      concurrency: e.COVERCHECK_WEBHOOK_CONCURRENCY,
      perHostConcurrency: e.COVERCHECK_WEBHOOK_HOST_CONCURRENCY,
      perHostMinTimeMs: e.COVERCHECK_WEBHOOK_HOST_MIN_TIME_MS,
      perHostQueue: e.COVERCHECK_WEBHOOK_HOST_QUEUE,
      breakerFailures: e.COVERCHECK_WEBHOOK_BREAKER_FAILURES,
      breakerCooldownMs: e.COVERCHECK_WEBHOOK_BREAKER_COOLDOWN_MS,
      retryScale: e.COVERCHECK_WEBHOOK_RETRY_SCALE,
      allowPrivate: e.COVERCHECK_WEBHOOK_ALLOW_PRIVATE,
      caFile: e.COVERCHECK_WEBHOOK_CA_FILE,
    },
    extraction: {
      threads: e.COVERCHECK_EXTRACT_THREADS ?? Math.max(1, os.availableParallelism() - 1),
      maxPending: e.COVERCHECK_EXTRACT_MAX_PENDING,
      maxPendingPerKey: e.COVERCHECK_EXTRACT_MAX_PENDING_PER_KEY,
      sandboxSharePct: e.COVERCHECK_EXTRACT_SANDBOX_SHARE_PCT,
      readingPerKey: { live: e.COVERCHECK_EXTRACT_READING_PER_KEY, sandbox: e.COVERCHECK_EXTRACT_READING_PER_SANDBOX_KEY },
      limits: {
        maxPages: e.COVERCHECK_EXTRACT_MAX_PAGES,
        maxPageAreaPt2: e.COVERCHECK_EXTRACT_MAX_PAGE_AREA_PT2,
        maxTotalAreaPt2: e.COVERCHECK_EXTRACT_MAX_TOTAL_AREA_PT2,
        maxPagePixels: e.COVERCHECK_EXTRACT_MAX_PAGE_PIXELS,
        maxTotalPixels: e.COVERCHECK_EXTRACT_MAX_TOTAL_PIXELS,
        maxImagePixels: e.COVERCHECK_EXTRACT_MAX_IMAGE_PIXELS,
        maxTotalImagePixels: e.COVERCHECK_EXTRACT_MAX_TOTAL_IMAGE_PIXELS,
        maxStreamBytes: e.COVERCHECK_EXTRACT_MAX_STREAM_MB * 1024 * 1024,
        maxExpandedOps: e.COVERCHECK_EXTRACT_MAX_EXPANDED_OPS,
        cpuMs: e.COVERCHECK_EXTRACT_CPU_MS,
        wallMs: e.COVERCHECK_EXTRACT_WALL_MS,
        memoryMb: e.COVERCHECK_EXTRACT_MEMORY_MB,
      },
    },
    sheets: {
      credentialsFile: e.GOOGLE_APPLICATION_CREDENTIALS,
      rootUrl: e.COVERCHECK_SHEETS_ROOT_URL,
      limits: {
        perProject: e.COVERCHECK_SHEETS_PER_MIN,
        perSpreadsheet: e.COVERCHECK_SHEETS_PER_SPREADSHEET_PER_MIN,
        windowMs: e.COVERCHECK_SHEETS_WINDOW_MS,
        waitingPerKey: e.COVERCHECK_SHEETS_QUEUE_PER_KEY,
        waitingTotal: e.COVERCHECK_SHEETS_QUEUE_TOTAL,
      },
      retryBaseMs: e.COVERCHECK_SHEETS_RETRY_MS,
      writebackWorkers: e.COVERCHECK_SHEETS_WRITEBACK_WORKERS,
      timeoutMs: e.COVERCHECK_SHEETS_TIMEOUT_MS,
      scheduleLeaseMs: e.COVERCHECK_SCHEDULE_LEASE_MS,
      schedulePauseAfter: e.COVERCHECK_SCHEDULE_PAUSE_AFTER,
      bindingRecheckMs: e.COVERCHECK_SHEETS_BINDING_RECHECK_MS,
      bindingChecksPerMinute: e.COVERCHECK_SHEETS_BINDING_CHECKS_PER_MIN,
    },
    datasets: { refresh: e.COVERCHECK_DATASET_REFRESH, refreshIntervalMs: e.COVERCHECK_DATASET_REFRESH_INTERVAL_MS },
    portal: {
      publicUrl: (e.COVERCHECK_PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ''),
      smtpUrl: e.COVERCHECK_SMTP_URL,
      mailFrom: e.COVERCHECK_MAIL_FROM,
      outbox: e.COVERCHECK_MAIL_OUTBOX,
      secret: e.COVERCHECK_PORTAL_SECRET,
      perIpPerHour: e.COVERCHECK_PORTAL_PER_IP_PER_HOUR,
      perAddressPerDay: e.COVERCHECK_PORTAL_PER_ADDRESS_PER_DAY,
      sweepIntervalMs: e.COVERCHECK_KEY_SWEEP_INTERVAL_MS,
    },
    registry: {
      timeoutMs: e.COVERCHECK_REGISTRY_TIMEOUT_MS,
      maxConcurrent: e.COVERCHECK_REGISTRY_MAX_CONCURRENT,
      minTimeMs: e.COVERCHECK_REGISTRY_MIN_TIME_MS,
      perSecond: e.COVERCHECK_REGISTRY_PER_SEC ?? null,
      upstreams: parseUpstreams(e.COVERCHECK_REGISTRY_UPSTREAMS),
    },
    fcaRegister: parseFcaRegister(e),
    ...overrides,
  };
}
