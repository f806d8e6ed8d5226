/**
 * The fuzz suite's requests. fast-check generates a `Case`, a small plain description (so a failing
 * one prints readably and replays from its seed and path); `buildRequest` turns it into bytes,
 * deterministically, against the running server's keys, ids and the hostile PDFs.
 *
 * Every route gets its own body generator (JSON routes, the multipart upload, the portal's forms,
 * query strings for GETs; for the PostgreSQL run, values of megabytes in the fields a message may
 * quote); any case may then be spoiled at the HTTP layer: its credentials, its
 * Content-Type and charset, its Content-Encoding (valid, corrupt, truncated, mislabelled, unknown),
 * its framing (chunked, lying Content-Length), extra headers (duplicates, control characters,
 * oversized), the request line (odd methods and paths), or a client that leaves mid-body.
 */
import zlib from 'node:zlib';
import fc from 'fast-check';
import type { RawRequest } from '../helpers/raw-http.js';
import { HOSTILE_PDF_NAMES, type HostilePdfName } from './hostile-pdfs.js';

/** What the running server offers to aim at (server-child.ts's ready message). */
export interface Env {
  keys: { live: string; test: string; verifyOnly: string; other: string; revoked: string };
  ids: {
    job: string;
    otherJob: string;
    batch: string;
    schedule: string;
    binding: string;
    dataset: string;
    /** The test key's watch the read, pause and resume routes aim at; the one its DELETE does; another key's. */
    watch: string;
    watchToDelete: string;
    otherWatch: string;
  };
  pdfs: Record<HostilePdfName, Buffer>;
  limits: { json: number; async: number };
  /** A fresh portal form: its CSRF cookie and field (fetched by the runner just before). */
  portalForm?: { cookie: string; csrf: string };
}

type BodyKind = 'json' | 'multipart' | 'form' | 'none';
interface RouteSpec {
  method: string;
  path: string;
  body: BodyKind;
}

/** Every route of the connector, as app.ts mounts it; connector.test.ts checks this against the app's routers. */
export const ROUTES = {
  'GET /healthz': { method: 'GET', path: '/healthz', body: 'none' },
  'GET /readyz': { method: 'GET', path: '/readyz', body: 'none' },
  'GET /metrics': { method: 'GET', path: '/metrics', body: 'none' },
  'GET /api/v1/openapi.json': { method: 'GET', path: '/api/v1/openapi.json', body: 'none' },
  'POST /api/v1/verify': { method: 'POST', path: '/api/v1/verify', body: 'json' },
  'POST /api/v1/verify/async': { method: 'POST', path: '/api/v1/verify/async', body: 'json' },
  'POST /api/v1/verify/batch': { method: 'POST', path: '/api/v1/verify/batch', body: 'json' },
  'POST /api/v1/documents/extract': { method: 'POST', path: '/api/v1/documents/extract', body: 'multipart' },
  'GET /api/v1/jobs/:job_id': { method: 'GET', path: '/api/v1/jobs/:job_id', body: 'none' },
  'DELETE /api/v1/jobs/:job_id': { method: 'DELETE', path: '/api/v1/jobs/:job_id', body: 'none' },
  'GET /api/v1/batches/:batch_id': { method: 'GET', path: '/api/v1/batches/:batch_id', body: 'none' },
  'GET /api/v1/verifications': { method: 'GET', path: '/api/v1/verifications', body: 'none' },
  'GET /api/v1/webhooks/deliveries': { method: 'GET', path: '/api/v1/webhooks/deliveries', body: 'none' },
  'POST /api/v1/watches': { method: 'POST', path: '/api/v1/watches', body: 'json' },
  'GET /api/v1/watches': { method: 'GET', path: '/api/v1/watches', body: 'none' },
  'GET /api/v1/watches/:watch_id': { method: 'GET', path: '/api/v1/watches/:watch_id', body: 'none' },
  'POST /api/v1/watches/:watch_id/pause': { method: 'POST', path: '/api/v1/watches/:watch_id/pause', body: 'json' },
  'POST /api/v1/watches/:watch_id/resume': { method: 'POST', path: '/api/v1/watches/:watch_id/resume', body: 'json' },
  'DELETE /api/v1/watches/:watch_id': { method: 'DELETE', path: '/api/v1/watches/:watch_id', body: 'none' },
  'GET /api/v1/sheets/service-account': { method: 'GET', path: '/api/v1/sheets/service-account', body: 'none' },
  'POST /api/v1/sheets/schedules': { method: 'POST', path: '/api/v1/sheets/schedules', body: 'json' },
  'GET /api/v1/sheets/schedules': { method: 'GET', path: '/api/v1/sheets/schedules', body: 'none' },
  'GET /api/v1/sheets/schedules/:schedule_id': { method: 'GET', path: '/api/v1/sheets/schedules/:schedule_id', body: 'none' },
  'DELETE /api/v1/sheets/schedules/:schedule_id': { method: 'DELETE', path: '/api/v1/sheets/schedules/:schedule_id', body: 'none' },
  'POST /api/v1/sheets/schedules/:schedule_id/resume': {
    method: 'POST',
    path: '/api/v1/sheets/schedules/:schedule_id/resume',
    body: 'json',
  },
  'POST /api/v1/sheets/bindings': { method: 'POST', path: '/api/v1/sheets/bindings', body: 'json' },
  'GET /api/v1/sheets/bindings': { method: 'GET', path: '/api/v1/sheets/bindings', body: 'none' },
  'GET /api/v1/sheets/bindings/:binding_id': { method: 'GET', path: '/api/v1/sheets/bindings/:binding_id', body: 'none' },
  'POST /api/v1/sheets/bindings/:binding_id/verify': { method: 'POST', path: '/api/v1/sheets/bindings/:binding_id/verify', body: 'json' },
  'DELETE /api/v1/sheets/bindings/:binding_id': { method: 'DELETE', path: '/api/v1/sheets/bindings/:binding_id', body: 'none' },
  'GET /api/v1/account': { method: 'GET', path: '/api/v1/account', body: 'none' },
  'GET /api/v1/datasets': { method: 'GET', path: '/api/v1/datasets', body: 'none' },
  'GET /api/v1/datasets/:slug': { method: 'GET', path: '/api/v1/datasets/:slug', body: 'none' },
  'GET /api/v1/datasets/:slug/series': { method: 'GET', path: '/api/v1/datasets/:slug/series', body: 'none' },
  'GET /portal/': { method: 'GET', path: '/portal/', body: 'none' },
  'POST /portal/keys': { method: 'POST', path: '/portal/keys', body: 'form' },
  'GET /portal/activate': { method: 'GET', path: '/portal/activate', body: 'none' },
  'POST /portal/activate': { method: 'POST', path: '/portal/activate', body: 'form' },
} as const satisfies Record<string, RouteSpec>;
export type RouteName = keyof typeof ROUTES;
const ROUTE_NAMES = Object.keys(ROUTES) as RouteName[];

// ---- the description ----

type Auth = 'test' | 'live' | 'none' | 'revoked' | 'verifyOnly' | 'other' | 'duplicate' | 'garbage' | 'basic' | 'lowercase' | 'empty';
/** A JSON value, where the string "$PDF:<name>" stands for that hostile PDF as base64. */
type Json = unknown;
type Body =
  | { t: 'json'; value: Json }
  | { t: 'text'; text: string }
  | { t: 'bytes'; bytes: number[] }
  | { t: 'nested'; depth: number; open: '[' | '{"a":' | 'mixed'; at: 'top' | 'provider' | 'batch-item' | 'sheet_target' }
  | { t: 'values'; count: number; container: 'array' | 'object' }
  | { t: 'big'; size: 'under' | 'over' | 'double'; fill: 'space' | 'digits' | 'string' | 'escapes' | 'pdf' }
  | { t: 'truncated'; value: Json; keep: number }
  | {
      t: 'multipart';
      boundary: string;
      header: 'same' | 'other' | 'missing' | 'quoted';
      parts: Part[];
      close: boolean;
      cut?: number;
      preamble?: string;
    }
  | { t: 'form'; fields: [string, string][]; csrf: 'fresh' | 'none' | 'garbage' }
  | { t: 'empty' }
  | Echo;
/**
 * A well-formed body but for one field an error message may quote, whose value (or, for an unknown
 * field, whose name) is near the route's body limit ('most') or a quarter of it ('some'): megabytes
 * on /verify/async and in a multipart field, 64 KB on the other JSON routes. Its answer must stay
 * small (messages quote a bounded prefix) and so must what an Idempotency-Key keeps of it.
 */
export interface Echo {
  t: 'echo';
  field: EchoField;
  fill: 'ascii' | 'multibyte' | 'escapes' | 'controls';
  share: 'most' | 'some';
  /** An Idempotency-Key sent with it: a few values, so that some repeat (a replay) and some meet another body (422). */
  idem?: string;
}
export type EchoField =
  | 'country'
  | 'insurance_type'
  | 'type'
  | 'policy_number'
  | 'provider'
  | 'unknown_name'
  | 'webhook_url'
  | 'sheet_target.spreadsheet_id'
  | 'sheet_target.sheet_name'
  | 'sheet_target.key_column'
  | 'sheet_target.columns.name'
  | 'sheet_target.columns.letter'
  | 'sheet_target.unknown_name'
  | 'dataset'
  | 'spreadsheet_id'
  | 'sheet_name'
  | 'cadence'
  | 'part_name'
  | 'filename';
interface Part {
  name: string;
  filename?: string;
  type?: string;
  content: { pdf: HostilePdfName } | { text: string } | { pdfOfSize: number } | { json: Json };
  extraHeader?: string;
}
type Encoding =
  | { c: 'identity' }
  | { c: 'gzip' | 'deflate' | 'br'; spoil?: 'garbage' | 'truncate' | 'flip' | 'twice' }
  | { label: string; actual: 'identity' | 'gzip' | 'br' };
type Framing = 'length' | 'chunked' | 'bad-chunk' | 'short-length' | 'long-length' | 'length-and-chunked' | 'none';

export interface Case {
  route: RouteName;
  /** Another method on the route's path. */
  method?: string;
  /** How the route's path is spoiled, if at all. */
  path: {
    id: 'own' | 'other' | 'random' | 'garbage' | 'bad-escape' | 'long';
    variant: 'plain' | 'trailing-slash' | 'double-slash' | 'upper' | 'dot-segment' | 'absolute' | 'semicolon';
    query: [string, string][] | string;
  };
  auth: Auth;
  body: Body | null;
  contentType: string | null | 'route';
  encoding: Encoding;
  framing: Framing;
  headers: [string, string][];
  /** Leave after this share of the body. */
  abortAt?: number;
}

// ---- generators ----

/** `arb`'s value once in `n` cases, else undefined (fc.option's freq is the other way round: 1 in freq is nil). */
const onceIn = <T>(n: number, arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> =>
  fc.oneof({ arbitrary: fc.constant(undefined), weight: n - 1 }, { arbitrary: arb, weight: 1 });

const oddStrings = fc.constantFrom(
  '',
  ' ',
  '\u0000',
  '%',
  '%00',
  '%ZZ',
  '../..',
  '\ud800',
  '😀',
  'pk_test_x',
  'null',
  '<script>',
  '\r\nX-Injected: 1',
  'a'.repeat(300),
  '1e309',
  '-1',
  '0x10',
  '\u202e',
);
const anyString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  oddStrings,
);
const anyJson: fc.Arbitrary<Json> = fc.oneof({ arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 3 }, { arbitrary: anyString, weight: 1 });
const pdfRef = fc.constantFrom(...HOSTILE_PDF_NAMES).map((n) => `$PDF:${n}`);

const webhookUrl = fc.oneof(
  fc.constantFrom(
    'https://hooks.example.com/x',
    'http://hooks.example.com/x',
    'https://internal.example.com/',
    'https://mapped.example.com/',
    'https://nowhere.example.com/',
    'https://[::ffff:0:7f00:1]/',
    'https://127.1/',
    'https://0x7f000001/',
    'https://[2001:db8::1]/',
    'https://192.0.2.1/',
    'https://169.254.169.254/latest/meta-data/',
    'https://user:pw@hooks.example.com/',
    'javascript:alert(1)',
    'file:///etc/passwd',
    'https://hooks.example.com:99999/',
  ),
  anyString,
);
const sheetTarget = fc.oneof(
  fc.record(
    {
      spreadsheet_id: fc.constantFrom('fuzz-sheet', 'someone-elses-sheet-0001', 'x'),
      sheet_name: fc.oneof(fc.constant('Results'), anyString),
      key_column: fc.constantFrom('A', 'ZZZ', '1', ''),
      columns: fc.oneof(fc.constant({ status: 'B' }), anyJson),
    },
    { requiredKeys: [] },
  ),
  anyJson,
);
const policyish = fc.record(
  {
    policy_number: fc.oneof(fc.constantFrom('UKM-1000-0001', 'UKM-1000-0002', 'DE-KFZ-2024-000001', 'X'), anyJson),
    country: fc.oneof(fc.constantFrom('UK', 'DE', 'FR', 'ES', 'uk'), anyJson),
    insurance_type: fc.oneof(fc.constantFrom('motor', 'travel', 'health', 'life'), anyJson),
    provider: fc.oneof(fc.constantFrom('Albion Demo Motor Insurance Limited', 'x'.repeat(201)), anyJson),
    webhook_url: webhookUrl,
    document: fc.oneof(pdfRef, anyJson, fc.constantFrom('JVBERi0=', 'not base64!', '')),
    sheet_target: sheetTarget,
    unknown_field: anyJson,
  },
  { requiredKeys: [] },
);
const jsonValueFor = (route: RouteName): fc.Arbitrary<Json> => {
  if (route === 'POST /api/v1/verify/batch') {
    return fc.oneof(
      fc.record(
        {
          policies: fc.oneof(fc.array(fc.oneof(policyish, anyJson), { maxLength: 110 }), anyJson),
          webhook_url: webhookUrl,
          sheet_target: sheetTarget,
        },
        { requiredKeys: [] },
      ),
      anyJson,
    );
  }
  if (route === 'POST /api/v1/watches') {
    return fc.oneof(
      // Well-formed, so that some watches are made (and run) and the books see a create go through.
      fc.record(
        {
          policies: fc.array(
            fc.constantFrom(
              { policy_number: 'UKM-1000-0001', country: 'UK', insurance_type: 'motor' },
              { policy_number: 'UKM-1000-0002', country: 'UK', insurance_type: 'motor', end_date: '2026-12-31' },
              { policy_number: 'MUT-000123', country: 'FR', insurance_type: 'health' },
            ),
            { minLength: 1, maxLength: 5 },
          ),
          cadence: fc.constantFrom('daily', 'weekly'),
          expiry_window_days: fc.integer({ min: 0, max: 365 }),
          report: fc.constantFrom({ webhook_url: 'https://hooks.example.com/x' }, { email: false }),
        },
        { requiredKeys: ['policies', 'cadence'] },
      ),
      fc.record(
        {
          policies: fc.oneof(fc.array(fc.oneof(policyish, anyJson), { maxLength: 20 }), anyJson),
          cadence: fc.oneof(fc.constantFrom('daily', 'weekly', 'hourly'), anyJson),
          expiry_window_days: fc.oneof(fc.integer(), anyJson),
          report: fc.oneof(
            fc.record({ webhook_url: webhookUrl, email: fc.boolean(), sheet_target: sheetTarget }, { requiredKeys: [] }),
            anyJson,
          ),
          notify_unchanged: anyJson,
        },
        { requiredKeys: [] },
      ),
      anyJson,
    );
  }
  if (route === 'POST /api/v1/watches/:watch_id/pause' || route === 'POST /api/v1/watches/:watch_id/resume') {
    // The one body these take is {} (or none): anything else must be refused and leave the watch as it was.
    return fc.oneof({ arbitrary: fc.constant({}), weight: 2 }, { arbitrary: policyish, weight: 1 }, { arbitrary: anyJson, weight: 2 });
  }
  if (route === 'POST /api/v1/sheets/schedules') {
    return fc.oneof(
      fc.record(
        {
          dataset: fc.oneof(fc.constant('$DATASET'), anyString),
          spreadsheet_id: fc.constantFrom('fuzz-sheet', 'someone-elses-sheet-0001', '../x'),
          sheet_name: fc.oneof(fc.constant('Results'), anyString),
          cadence: fc.constantFrom('daily', 'hourly', 'weekly'),
          limit: fc.oneof(fc.integer(), anyJson),
        },
        { requiredKeys: [] },
      ),
      anyJson,
    );
  }
  if (route === 'POST /api/v1/sheets/bindings') {
    return fc.oneof(
      fc.record(
        { spreadsheet_id: fc.oneof(fc.constantFrom('fuzz-sheet', 'someone-elses-sheet-0001', '../x', ''), anyJson), extra: anyJson },
        { requiredKeys: [] },
      ),
      anyJson,
    );
  }
  return fc.oneof({ arbitrary: policyish, weight: 4 }, { arbitrary: anyJson, weight: 1 });
};

const POLICY_ECHO: EchoField[] = ['country', 'insurance_type', 'type', 'policy_number', 'provider', 'unknown_name'];
const TARGET_ECHO: EchoField[] = [
  'webhook_url',
  'sheet_target.spreadsheet_id',
  'sheet_target.sheet_name',
  'sheet_target.key_column',
  'sheet_target.columns.name',
  'sheet_target.columns.letter',
  'sheet_target.unknown_name',
];
/** The fields a route's messages may quote, per route. */
export function echoFieldsFor(route: RouteName): EchoField[] {
  switch (route) {
    case 'POST /api/v1/verify':
      return [...POLICY_ECHO, 'webhook_url'];
    case 'POST /api/v1/verify/async':
    case 'POST /api/v1/verify/batch':
      return [...POLICY_ECHO, ...TARGET_ECHO];
    case 'POST /api/v1/watches':
      return POLICY_ECHO;
    case 'POST /api/v1/sheets/schedules':
      return ['dataset', 'spreadsheet_id', 'sheet_name', 'cadence', 'unknown_name'];
    case 'POST /api/v1/sheets/bindings':
      return ['spreadsheet_id', 'unknown_name'];
    case 'POST /api/v1/documents/extract':
      return ['webhook_url', 'sheet_target.sheet_name', 'sheet_target.columns.name', 'part_name', 'filename'];
    default:
      return ['unknown_name'];
  }
}
export const echoBodyFor = (route: RouteName): fc.Arbitrary<Body> =>
  fc
    .record({
      field: fc.constantFrom(...echoFieldsFor(route)),
      fill: fc.constantFrom('ascii' as const, 'multibyte' as const, 'escapes' as const, 'controls' as const),
      share: fc.constantFrom('most' as const, 'some' as const),
      idem: onceIn(2, fc.constantFrom('fuzz-echo-1', 'fuzz-echo-2', 'fuzz-echo-3')),
    })
    .map(({ idem, ...e }): Body => ({ t: 'echo', ...e, ...(idem !== undefined ? { idem } : {}) }));

/** Which bodies a run generates besides the rest: `echo`, large values in quoted fields (the PostgreSQL run). */
interface Kinds {
  echo: boolean;
}

const jsonBodyFor = (route: RouteName, kinds: Kinds): fc.Arbitrary<Body> =>
  fc.oneof(
    ...(kinds.echo ? [{ arbitrary: echoBodyFor(route), weight: 4 }] : []),
    { arbitrary: jsonValueFor(route).map((value): Body => ({ t: 'json', value })), weight: 36 },
    { arbitrary: anyString.map((text): Body => ({ t: 'text', text })), weight: 6 },
    {
      arbitrary: fc
        .constantFrom(
          '1e99999',
          '[',
          '{"a":1,"a":2}',
          '\ufeff{}',
          '"\\ud800"',
          '{"__proto__":{"polluted":1}}',
          '{"constructor":{"prototype":{"x":1}}}',
          'NaN',
          '{"a":tru}',
          '[1,]',
          '{"policies":[]}',
        )
        .map((text): Body => ({ t: 'text', text })),
      weight: 6,
    },
    { arbitrary: fc.uint8Array({ maxLength: 64 }).map((b): Body => ({ t: 'bytes', bytes: [...b] })), weight: 3 },
    {
      arbitrary: fc
        .record({
          depth: fc.oneof(fc.integer({ min: 28, max: 40 }), fc.constantFrom(1000, 100_000, 3_000_000)),
          open: fc.constantFrom('[' as const, '{"a":' as const, 'mixed' as const),
          at: fc.constantFrom('top' as const, 'provider' as const, 'batch-item' as const, 'sheet_target' as const),
        })
        .map((n): Body => ({ t: 'nested', ...n })),
      weight: 3,
    },
    {
      arbitrary: fc
        .record({ count: fc.constantFrom(9_990, 10_010, 200_000), container: fc.constantFrom('array' as const, 'object' as const) })
        .map((v): Body => ({ t: 'values', ...v })),
      weight: 3,
    },
    {
      arbitrary: fc
        .record({
          size: fc.constantFrom('under' as const, 'over' as const, 'double' as const),
          fill: fc.constantFrom('space' as const, 'digits' as const, 'string' as const, 'escapes' as const, 'pdf' as const),
        })
        .map((b): Body => ({ t: 'big', ...b })),
      weight: route === 'POST /api/v1/verify/async' ? 3 : 1,
    },
    {
      arbitrary: fc
        .record({ value: policyish, keep: fc.double({ min: 0, max: 1, noNaN: true }) })
        .map((v): Body => ({ t: 'truncated', ...v })),
      weight: 6,
    },
    { arbitrary: fc.constant<Body>({ t: 'empty' }), weight: 3 },
  );

const boundaryChars = fc.oneof(
  fc.constantFrom('XyZ123', '----WebKitFormBoundary7MA4YWxkTrZu0gW', 'a', "'()+_,-./:=?", 'x'.repeat(70), 'x'.repeat(200)),
  fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 30 }),
);
const part: fc.Arbitrary<Part> = fc.record(
  {
    name: fc.oneof(
      { arbitrary: fc.constantFrom('file', 'webhook_url', 'sheet_target'), weight: 6 },
      { arbitrary: fc.oneof(fc.constantFrom('document', 'file[]', 'FILE', ''), anyString), weight: 1 },
    ),
    filename: fc.option(fc.oneof(fc.constantFrom('policy.pdf', '../../etc/passwd', 'a"b.pdf', 'é.pdf'), anyString), { nil: undefined }),
    type: fc.option(fc.oneof(fc.constantFrom('application/pdf', 'text/plain', 'application/octet-stream'), anyString), { nil: undefined }),
    content: fc.oneof(
      { arbitrary: fc.constantFrom(...HOSTILE_PDF_NAMES).map((pdf) => ({ pdf })), weight: 4 },
      { arbitrary: webhookUrl.map((text) => ({ text })), weight: 2 },
      { arbitrary: sheetTarget.map((json) => ({ json })), weight: 1 },
      { arbitrary: anyString.map((text) => ({ text })), weight: 1 },
      { arbitrary: fc.constantFrom(0, 5, 100_000, 14 * 1024 * 1024 + 1).map((pdfOfSize) => ({ pdfOfSize })), weight: 1 },
    ),
    extraHeader: onceIn(
      8,
      fc.oneof(
        fc.constantFrom(
          'Content-Transfer-Encoding: base64',
          'no colon here',
          `X-Long: ${'h'.repeat(100_000)}`,
          'Content-Disposition: form-data; name="file"',
        ),
        anyString,
      ),
    ),
  },
  { requiredKeys: ['name', 'content'] },
);
const multipartBody: fc.Arbitrary<Body> = fc
  .record({
    boundary: boundaryChars,
    header: fc.constantFrom('same' as const, 'same' as const, 'same' as const, 'other' as const, 'missing' as const, 'quoted' as const),
    parts: fc.array(part, { maxLength: 5 }),
    close: fc.boolean(),
    cut: onceIn(3, fc.double({ min: 0, max: 1, noNaN: true })),
    preamble: onceIn(6, anyString),
  })
  .map((m): Body => ({ t: 'multipart', ...m }));

/** A form the route accepts, carrying a hostile PDF: what gets as far as the store (and extraction). */
const wellFormedUpload: fc.Arbitrary<Body> = fc
  .record({ pdf: fc.constantFrom(...HOSTILE_PDF_NAMES), webhook: onceIn(3, webhookUrl) })
  .map(({ pdf, webhook }): Body => ({
    t: 'multipart',
    boundary: '----WebKitFormBoundary7MA4YWxkTrZu0gW',
    header: 'same',
    parts: [
      { name: 'file', filename: `${pdf}.pdf`, type: 'application/pdf', content: { pdf } },
      ...(webhook !== undefined ? [{ name: 'webhook_url', content: { text: webhook } }] : []),
    ],
    close: true,
  }));

const formBody = (route: RouteName): fc.Arbitrary<Body> =>
  fc
    .record({
      fields: fc.array(
        fc.oneof(
          fc.tuple(
            fc.constant(route === 'POST /portal/keys' ? 'who' : 'token'),
            fc.oneof(fc.constantFrom('Ada Lovelace', 'ada@example.com', 'not@an@email', ''), anyString),
          ),
          fc.tuple(fc.constant('mode'), fc.oneof(fc.constantFrom('live', 'test'), anyString)),
          fc.tuple(anyString, anyString),
        ),
        { maxLength: 12 },
      ),
      csrf: fc.constantFrom('fresh' as const, 'fresh' as const, 'none' as const, 'garbage' as const),
    })
    .map((f): Body => ({ t: 'form', ...f }));

const bodyFor = (route: RouteName, kinds: Kinds): fc.Arbitrary<Body | null> => {
  const kind = ROUTES[route].body as BodyKind;
  if (kind === 'json') return jsonBodyFor(route, kinds);
  if (kind === 'multipart')
    return fc.oneof(
      { arbitrary: wellFormedUpload, weight: 4 },
      { arbitrary: multipartBody, weight: 8 },
      ...(kinds.echo ? [{ arbitrary: echoBodyFor(route), weight: 1 }] : []),
      { arbitrary: jsonBodyFor(route, kinds), weight: 1 },
    );
  if (kind === 'form') return formBody(route);
  // A body on a GET: mostly none, sometimes one (it must be ignored or refused cleanly).
  return fc.oneof({ arbitrary: fc.constant(null), weight: 8 }, { arbitrary: jsonBodyFor('POST /api/v1/verify', kinds), weight: 1 });
};

const encoding: fc.Arbitrary<Encoding> = fc.oneof(
  { arbitrary: fc.constant<Encoding>({ c: 'identity' }), weight: 14 },
  { arbitrary: fc.record({ c: fc.constantFrom('gzip' as const, 'deflate' as const, 'br' as const) }), weight: 3 },
  {
    arbitrary: fc.record({
      c: fc.constantFrom('gzip' as const, 'deflate' as const, 'br' as const),
      spoil: fc.constantFrom('garbage' as const, 'truncate' as const, 'flip' as const, 'twice' as const),
    }),
    weight: 3,
  },
  {
    arbitrary: fc.record({
      label: fc.constantFrom(
        'gzip',
        'br',
        'deflate',
        'zstd',
        'compress',
        'x-gzip',
        'gzip, gzip',
        'identity, gzip',
        ' GZIP ',
        '',
        'chunked',
        'identity',
      ),
      actual: fc.constantFrom('identity' as const, 'gzip' as const, 'br' as const),
    }),
    weight: 2,
  },
);
const framing: fc.Arbitrary<Framing> = fc.oneof(
  { arbitrary: fc.constant<Framing>('length'), weight: 16 },
  { arbitrary: fc.constantFrom<Framing>('chunked', 'bad-chunk', 'short-length', 'long-length', 'length-and-chunked', 'none'), weight: 3 },
);
const contentType = fc.oneof(
  { arbitrary: fc.constant<'route'>('route'), weight: 14 },
  {
    arbitrary: fc.constantFrom(
      null,
      'text/plain',
      'application/json; charset=utf-16',
      'application/json; charset=latin1',
      'application/json; charset="UTF-8"',
      'application/json; charset=utf8',
      'application/json; charset=klingon',
      'application/json;;',
      'application/json; charset',
      'application/x-www-form-urlencoded',
      'application/x-www-form-urlencoded; charset=utf-16',
      'multipart/form-data; boundary=XyZ123',
      'multipart/form-data',
      'multipart/mixed; boundary=XyZ123',
      'application/vnd.api+json',
      '*/*',
      'application/json, text/plain',
    ),
    weight: 3,
  },
);
const extraHeader: fc.Arbitrary<[string, string]> = fc.oneof(
  fc.tuple(
    fc.constant('Idempotency-Key'),
    fc.oneof(fc.constantFrom('fuzz-idem-1', 'fuzz-idem-2', '', 'with space', 'k'.repeat(300)), anyString),
  ),
  fc.tuple(
    fc.constantFrom(
      'X-Forwarded-For',
      'Cookie',
      'Accept',
      'Accept-Encoding',
      'Origin',
      'Referer',
      'User-Agent',
      'Range',
      'If-None-Match',
      'Upgrade',
      'Expect',
    ),
    fc.oneof(
      fc.constantFrom(
        '100-continue',
        'websocket',
        'bytes=0-1',
        '*',
        'gzip, br',
        'cc_portal_sid=x; cc_portal_sid=y',
        'text/csv',
        'text/csv;q=0',
      ),
      anyString,
    ),
  ),
  fc.tuple(
    fc.constantFrom('Content-Type', 'Content-Encoding', 'Host', 'Content-Length'),
    fc.constantFrom('application/json', 'gzip', 'evil.example', '0', '-1', '1e3', '18446744073709551617'),
  ),
  fc.tuple(fc.constantFrom('Bad Header', 'X:Colon', 'X-Ctl', '', 'X-Ünï'), fc.constantFrom('v', '\u0000', '\u007f', 'a\r\n b')),
  fc.tuple(fc.constant('X-Big'), fc.constantFrom('b'.repeat(8_000), 'b'.repeat(20_000))),
);
const pathSpec: fc.Arbitrary<Case['path']> = fc.record({
  id: fc.oneof(
    { arbitrary: fc.constantFrom('own' as const, 'own' as const, 'other' as const, 'random' as const), weight: 6 },
    { arbitrary: fc.constantFrom('garbage' as const, 'bad-escape' as const, 'long' as const), weight: 1 },
  ),
  variant: fc.oneof(
    { arbitrary: fc.constant('plain' as const), weight: 16 },
    {
      arbitrary: fc.constantFrom(
        'trailing-slash' as const,
        'double-slash' as const,
        'upper' as const,
        'dot-segment' as const,
        'absolute' as const,
        'semicolon' as const,
      ),
      weight: 2,
    },
  ),
  query: fc.oneof(
    { arbitrary: fc.constant<[string, string][]>([]), weight: 6 },
    {
      arbitrary: fc.array(
        fc.tuple(
          fc.oneof(
            fc.constantFrom(
              'wait',
              'limit',
              'offset',
              'q',
              'category',
              'source',
              'cadence',
              'direction',
              'token',
              '%74oken',
              'key',
              'from',
              'to',
              'status',
              'policy_number',
              'watch_id',
              'cursor',
            ),
            anyString,
          ),
          fc.oneof(
            fc.constantFrom(
              '0',
              '1',
              '25',
              '26',
              '-1',
              '1.5',
              '1e3',
              '99999999999999999999',
              'latest',
              'earliest',
              'daily',
              'motor',
              '2026-03-01',
              '2026-02-30T25:61:00Z',
              '2026-03-01T09:00:00+14:00',
              'verified',
              'UKM-1000-0001',
              '$WATCH',
              '$OTHER_WATCH',
              'eyJrIjoiIn0',
            ),
            anyString,
          ),
        ),
        { maxLength: 6 },
      ),
      weight: 3,
    },
    {
      arbitrary: fc.constantFrom('%', '%E0%A4%A', 'a=%ZZ', '&&&', '=', 'a[b]=1&a[c]=2', `q=${'%41'.repeat(5000)}`, 'limit=1&limit=2'),
      weight: 1,
    },
  ),
});

/** Routes that read a body get more cases: that is where the parsers are. */
const ROUTE_WEIGHTS: Partial<Record<RouteName, number>> = {
  'POST /api/v1/documents/extract': 8,
  'POST /api/v1/verify': 3,
  'POST /api/v1/verify/async': 3,
  'POST /api/v1/verify/batch': 3,
  'POST /api/v1/sheets/schedules': 2,
  'POST /portal/keys': 2,
  'POST /portal/activate': 2,
  'POST /api/v1/watches': 3,
  'POST /api/v1/watches/:watch_id/pause': 2,
  'POST /api/v1/watches/:watch_id/resume': 2,
  'DELETE /api/v1/watches/:watch_id': 2,
  'GET /api/v1/verifications': 2,
};

/** A run's cases; `echo` adds bodies with values of megabytes in the fields a message may quote. */
export const caseArbitraryWith = (kinds: Kinds): fc.Arbitrary<Case> =>
  fc.oneof(...ROUTE_NAMES.map((r) => ({ arbitrary: fc.constant(r), weight: ROUTE_WEIGHTS[r] ?? 1 }))).chain((route) =>
    fc.record(
      {
        route: fc.constant(route),
        method: onceIn(
          12,
          fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE', 'PROPFIND', 'CONNECT', 'get', 'G3T'),
        ),
        path: pathSpec,
        auth: fc.oneof(
          { arbitrary: fc.constant<Auth>('test'), weight: 10 },
          {
            arbitrary: fc.constantFrom<Auth>(
              'live',
              'none',
              'revoked',
              'verifyOnly',
              'other',
              'duplicate',
              'garbage',
              'basic',
              'lowercase',
              'empty',
            ),
            weight: 4,
          },
        ),
        body: bodyFor(route, kinds),
        contentType,
        encoding,
        framing,
        headers: fc.oneof(
          { arbitrary: fc.constant<[string, string][]>([]), weight: 5 },
          { arbitrary: fc.array(extraHeader, { minLength: 1, maxLength: 3 }), weight: 2 },
        ),
        abortAt: onceIn(25, fc.double({ min: 0, max: 0.95, noNaN: true })),
      },
      { requiredKeys: ['route', 'path', 'auth', 'body', 'contentType', 'encoding', 'framing', 'headers'] },
    ),
  );
/** The SQLite run's cases (connector.test.ts). */
export const caseArbitrary = caseArbitraryWith({ echo: false });

// ---- building the bytes ----

/** encodeURIComponent that also takes lone surrogates (as U+FFFD, which is what UTF-8 makes of them). */
function pct(text: string): string {
  let out = '';
  for (const b of Buffer.from(text, 'utf8'))
    out += /[A-Za-z0-9\-_.!~*'()]/.test(String.fromCharCode(b))
      ? String.fromCharCode(b)
      : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  return out;
}

const withPdfs = (value: Json, env: Env): string =>
  JSON.stringify(value, (_k, v: unknown) => {
    if (typeof v !== 'string') return v;
    if (v.startsWith('$PDF:')) return env.pdfs[v.slice(5) as HostilePdfName]?.toString('base64') ?? v;
    return v === '$DATASET' ? env.ids.dataset : v;
  }) ?? 'null';

function nestedJson(depth: number, open: '[' | '{"a":' | 'mixed'): string {
  if (open === '[') return `${'['.repeat(depth)}${']'.repeat(depth)}`;
  if (open === '{"a":') return `${'{"a":'.repeat(depth)}0${'}'.repeat(depth)}`;
  const half = Math.floor(depth / 2);
  return `${'[{"a":'.repeat(half)}0${'}]'.repeat(half)}`;
}

/**
 * A body near or over the route's limit, mostly one field. 'pdf' is a 2 MB PDF in base64 padded
 * with line breaks to the size: read, decoded and stored. Not a 14 MB one: storing that many bytes
 * in SQLite takes 30-300 ms on the event loop by itself (better-sqlite3 is synchronous; a WAL
 * checkpoint may follow), which is the store's to fix, not the HTTP layer's (docs/request-limits.md).
 */
function bigBody(size: 'under' | 'over' | 'double', fill: 'space' | 'digits' | 'string' | 'escapes' | 'pdf', limit: number): Buffer {
  const target = size === 'under' ? limit - 256 : size === 'over' ? limit + 1024 : limit * 2;
  const head = '{"policy_number":"UKM-1000-0001","country":"UK","insurance_type":"motor","document":';
  const room = target - head.length - 3;
  const filler = (): string => {
    switch (fill) {
      case 'space':
        return `${' '.repeat(room)}"JVBERi0="`;
      case 'digits':
        return '1'.repeat(room);
      case 'escapes':
        return `"${'\\"'.repeat(Math.floor(room / 2))}"`;
      case 'string':
        return `"${'QUFB'.repeat(Math.floor(room / 4))}"`;
      case 'pdf': {
        // JSON's \n every 76 characters, as MIME base64 has line breaks, then more to fill the room.
        const text = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(2 * 1024 * 1024, 0x20)])
          .toString('base64')
          .replace(/.{76}/g, '$&\\n');
        return `"${text}${'\\n'.repeat(Math.max(0, Math.floor((room - text.length) / 2)))}"`;
      }
    }
  };
  return Buffer.from(`${head}${filler()}}`);
}

function multipart(body: Extract<Body, { t: 'multipart' }>, env: Env): Buffer {
  const out: Buffer[] = [];
  if (body.preamble) out.push(Buffer.from(`${body.preamble}\r\n`));
  for (const p of body.parts) {
    const disposition = `form-data; name="${p.name}"${p.filename !== undefined ? `; filename="${p.filename}"` : ''}`;
    const lines = [
      `Content-Disposition: ${disposition}`,
      ...(p.type !== undefined ? [`Content-Type: ${p.type}`] : []),
      ...(p.extraHeader !== undefined ? [p.extraHeader] : []),
    ];
    out.push(Buffer.from(`--${body.boundary}\r\n${lines.join('\r\n')}\r\n\r\n`));
    const c = p.content;
    out.push(
      'pdf' in c
        ? env.pdfs[c.pdf]
        : 'text' in c
          ? Buffer.from(c.text)
          : 'json' in c
            ? Buffer.from(JSON.stringify(c.json) ?? 'null')
            : Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(Math.max(0, c.pdfOfSize - 9), 0x20)]).subarray(0, c.pdfOfSize),
    );
    out.push(Buffer.from('\r\n'));
  }
  if (body.close) out.push(Buffer.from(`--${body.boundary}--\r\n`));
  const all = Buffer.concat(out);
  return body.cut === undefined ? all : all.subarray(0, Math.floor(all.length * body.cut));
}

/** Large bodies are built once per run: building (and compressing) 6-40 MB each time would dominate the suite's time. */
const built = new Map<string, { bytes: Buffer; label: string | null }>();

function isLarge(b: Body): boolean {
  return b.t === 'big' || (b.t === 'nested' && b.depth > 10_000) || (b.t === 'values' && b.count > 10_000);
}

/** A multipart echo's size: far over the 4,096 bytes a text field may hold, as a client may send it. */
const MULTIPART_ECHO_BYTES = 5 * 1024 * 1024;
const ECHO_MARK = '\u0000ECHO\u0000';

/** The echoed value as raw JSON string content (no quotes) of about `bytes` bytes, and the value it parses to. */
function echoText(fill: Echo['fill'], bytes: number): { raw: string; value: string } {
  switch (fill) {
    case 'ascii':
      return { raw: 'Q'.repeat(bytes), value: 'Q'.repeat(bytes) };
    case 'multibyte':
      return { raw: '€'.repeat(Math.floor(bytes / 3)), value: '€'.repeat(Math.floor(bytes / 3)) };
    case 'escapes':
      return { raw: '\\u00e9'.repeat(Math.floor(bytes / 6)), value: 'é'.repeat(Math.floor(bytes / 6)) };
    case 'controls':
      return { raw: '\\u0001\\"'.repeat(Math.floor(bytes / 8)), value: '\u0001"'.repeat(Math.floor(bytes / 8)) };
  }
}

/** The route's well-formed body with ECHO_MARK where the echoed value (or name) goes. */
function echoShape(route: RouteName, field: EchoField, env: Env): Record<string, unknown> {
  const policy: Record<string, unknown> = { policy_number: 'UKM-1000-0001', country: 'UK', insurance_type: 'motor' };
  const target: Record<string, unknown> = {
    spreadsheet_id: 'fuzz-sheet-0000000',
    sheet_name: 'Results',
    key_column: 'A',
    columns: { status: 'B' },
  };
  const prefix = (f: string) => (f === 'webhook_url' ? `https://hooks.example.com/${ECHO_MARK}` : ECHO_MARK);
  const place = (obj: Record<string, unknown>, f: string) => {
    if (f === 'unknown_name') obj[ECHO_MARK] = 1;
    else obj[f] = prefix(f);
  };
  if (field.startsWith('sheet_target.')) {
    const sub = field.slice('sheet_target.'.length);
    if (sub === 'columns.name') target.columns = { [ECHO_MARK]: 'B' };
    else if (sub === 'columns.letter') target.columns = { status: ECHO_MARK };
    else place(target, sub === 'unknown_name' ? 'unknown_name' : sub);
  }
  const withTarget = (o: Record<string, unknown>) => (field.startsWith('sheet_target.') ? { ...o, sheet_target: target } : o);
  switch (route) {
    case 'POST /api/v1/sheets/schedules': {
      const body: Record<string, unknown> = {
        dataset: env.ids.dataset,
        spreadsheet_id: 'fuzz-sheet',
        sheet_name: 'Results',
        cadence: 'daily',
      };
      place(body, field);
      return body;
    }
    case 'POST /api/v1/sheets/bindings': {
      const body: Record<string, unknown> = { spreadsheet_id: 'fuzz-sheet' };
      place(body, field);
      return body;
    }
    case 'POST /api/v1/watches': {
      const item = { ...policy };
      place(item, field);
      return { policies: [item], cadence: 'daily' };
    }
    case 'POST /api/v1/verify/batch': {
      const item = { ...policy };
      if (POLICY_ECHO.includes(field)) place(item, field);
      const body: Record<string, unknown> = withTarget({ policies: [item, { ...policy, policy_number: 'UKM-1000-0002' }] });
      if (field === 'webhook_url') place(body, field);
      return body;
    }
    case 'POST /api/v1/verify':
    case 'POST /api/v1/verify/async': {
      const body = withTarget({ ...policy });
      if (!field.startsWith('sheet_target.')) place(body, field);
      return body;
    }
    default: {
      const body: Record<string, unknown> = {};
      place(body, field);
      return body;
    }
  }
}

/** An echo case's body: JSON near the route's limit, or a multipart form with an oversized field, name or filename. */
function echoBody(c: Case, b: Echo, env: Env): Buffer {
  if (ROUTES[c.route].body === 'multipart') {
    const { value } = echoText(b.fill, b.share === 'most' ? MULTIPART_ECHO_BYTES : MULTIPART_ECHO_BYTES / 4);
    const file: Part = {
      name: 'file',
      filename: b.field === 'filename' ? value : 'policy.pdf',
      type: 'application/pdf',
      content: { pdf: 'encryptedAes256' },
    };
    const extra: Part[] =
      b.field === 'webhook_url'
        ? [{ name: 'webhook_url', content: { text: `https://hooks.example.com/${value}` } }]
        : b.field === 'part_name'
          ? [{ name: value, content: { text: '1' } }]
          : b.field === 'filename'
            ? []
            : [
                {
                  name: 'sheet_target',
                  content: {
                    json:
                      b.field === 'sheet_target.sheet_name'
                        ? { spreadsheet_id: 'fuzz-sheet-0000000', sheet_name: value, key_column: 'A', columns: { status: 'B' } }
                        : { spreadsheet_id: 'fuzz-sheet-0000000', sheet_name: 'R', key_column: 'A', columns: { [value]: 'B' } },
                  },
                },
              ];
    return multipart({ t: 'multipart', boundary: ECHO_BOUNDARY, header: 'same', parts: [file, ...extra], close: true }, env);
  }
  const limit = c.route === 'POST /api/v1/verify/async' ? env.limits.async : env.limits.json;
  const shape = JSON.stringify(echoShape(c.route, b.field, env));
  const mark = JSON.stringify(ECHO_MARK).slice(1, -1);
  // Room for the value: the share of the limit, less the rest of the body and a margin under the limit.
  const room = (b.share === 'most' ? limit - 1024 : Math.floor(limit / 4)) - shape.length;
  return Buffer.from(shape.replace(mark, echoText(b.fill, room).raw));
}
const ECHO_BOUNDARY = '----FuzzEchoBoundary';

/** The body's bytes as sent, encoded as the case says. */
function encodedBody(c: Case, env: Env): { bytes: Buffer; label: string | null } | null {
  if (!c.body) return null;
  const make = () => encode(bodyBytes(c, env)!, c.encoding);
  if (!isLarge(c.body)) return make();
  const key = `${c.route} ${JSON.stringify(c.body)} ${JSON.stringify(c.encoding)}`;
  let out = built.get(key);
  if (!out) built.set(key, (out = make()));
  return out;
}

function bodyBytes(c: Case, env: Env): Buffer | null {
  const b = c.body;
  if (!b) return null;
  const limit = c.route === 'POST /api/v1/verify/async' ? env.limits.async : env.limits.json;
  switch (b.t) {
    case 'json':
      return Buffer.from(withPdfs(b.value, env));
    case 'text':
      return Buffer.from(b.text);
    case 'bytes':
      return Buffer.from(b.bytes);
    case 'nested': {
      const inner = nestedJson(b.depth, b.open);
      const policy = '"policy_number":"UKM-1000-0001","country":"UK","insurance_type":"motor"';
      if (b.at === 'top') return Buffer.from(inner);
      if (b.at === 'provider') return Buffer.from(`{${policy},"provider":${inner}}`);
      if (b.at === 'batch-item') return Buffer.from(`{"policies":[{${policy}},${inner}]}`);
      return Buffer.from(`{${policy},"sheet_target":${inner}}`);
    }
    case 'values':
      return Buffer.from(
        b.container === 'array'
          ? `{"policies":[${'0,'.repeat(b.count)}0]}`
          : `{${Array.from({ length: b.count }, (_, i) => `"k${i}":0`).join(',')}}`,
      );
    case 'big':
      return bigBody(b.size, b.fill, limit);
    case 'truncated': {
      const whole = Buffer.from(withPdfs(b.value, env));
      return whole.subarray(0, Math.floor(whole.length * b.keep));
    }
    case 'multipart':
      return multipart(b, env);
    case 'form': {
      const fields = [...b.fields];
      if (b.csrf === 'fresh' && env.portalForm) fields.push(['csrf', env.portalForm.csrf]);
      if (b.csrf === 'garbage') fields.push(['csrf', 'AAAAAAAAAAAAAAAAAAAAAA.1.00']);
      return Buffer.from(fields.map(([k, v]) => `${pct(k)}=${pct(v)}`).join('&'));
    }
    case 'empty':
      return Buffer.alloc(0);
    case 'echo':
      return echoBody(c, b, env);
  }
}

function encode(bytes: Buffer, enc: Encoding): { bytes: Buffer; label: string | null } {
  const compress = (c: 'gzip' | 'deflate' | 'br', b: Buffer) =>
    c === 'gzip'
      ? zlib.gzipSync(b)
      : c === 'deflate'
        ? zlib.deflateSync(b)
        : zlib.brotliCompressSync(b, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } });
  if ('label' in enc) return { bytes: enc.actual === 'identity' ? bytes : compress(enc.actual, bytes), label: enc.label };
  if (enc.c === 'identity') return { bytes, label: null };
  const packed = compress(enc.c, bytes);
  switch (enc.spoil) {
    case undefined:
      return { bytes: packed, label: enc.c };
    case 'garbage':
      return { bytes: Buffer.concat([Buffer.from('definitely not compressed '), bytes]), label: enc.c };
    case 'truncate':
      return { bytes: packed.subarray(0, Math.floor(packed.length / 2)), label: enc.c };
    case 'flip': {
      const flipped = Buffer.from(packed);
      if (flipped.length > 12) flipped[Math.floor(flipped.length / 2)]! ^= 0x55;
      return { bytes: flipped, label: enc.c };
    }
    case 'twice':
      return { bytes: compress(enc.c, packed), label: enc.c };
  }
}

function routePath(c: Case, env: Env): string {
  const ids = c.route.includes(':job_id')
    ? [env.ids.job, env.ids.otherJob]
    : c.route.includes(':batch_id')
      ? [env.ids.batch, env.ids.otherJob]
      : c.route.includes(':schedule_id')
        ? [env.ids.schedule, 'sch_00000000000000000000']
        : c.route.includes(':binding_id')
          ? [env.ids.binding, 'sbd_00000000000000000000']
          : c.route.includes(':watch_id')
            ? [c.route.startsWith('DELETE') ? env.ids.watchToDelete : env.ids.watch, env.ids.otherWatch]
            : [env.ids.dataset, 'no-such-dataset'];
  const id = {
    own: ids[0]!,
    other: ids[1]!,
    random: '2b5f1c9e-0d4e-4c1a-9f7e-3a1b2c3d4e5f',
    garbage: pct('a b/ü?#'),
    'bad-escape': '%E0%A4%A',
    long: 'i'.repeat(5000),
  }[c.path.id];
  let p = ROUTES[c.route].path.replace(/:[a-z_]+/, id);
  switch (c.path.variant) {
    case 'trailing-slash':
      p += '/';
      break;
    case 'double-slash':
      p = `/${p}`;
      break;
    case 'upper':
      p = p.toUpperCase();
      break;
    case 'dot-segment':
      p = p.replace(/\/([^/]+)$/, '/../$1/./$1').replace('/../', '/x/../');
      break;
    case 'absolute':
      p = `http://evil.example${p}`;
      break;
    case 'semicolon':
      p += ';jsessionid=1';
      break;
  }
  const q = c.path.query;
  const value = (v: string) => (v === '$WATCH' ? env.ids.watch : v === '$OTHER_WATCH' ? env.ids.otherWatch : v);
  const query = typeof q === 'string' ? q : q.map(([k, v]) => `${pct(k)}=${pct(value(v))}`).join('&');
  return query ? `${p}?${query}` : p;
}

function authHeaders(auth: Auth, env: Env): [string, string][] {
  switch (auth) {
    case 'none':
      return [];
    case 'duplicate':
      return [
        ['Authorization', `Bearer ${env.keys.test}`],
        ['Authorization', `Bearer ${env.keys.other}`],
      ];
    case 'garbage':
      return [['Authorization', 'Bearer pk_test_\u00ff\u00fe not a key']];
    case 'basic':
      return [['Authorization', 'Basic dXNlcjpwYXNz']];
    case 'lowercase':
      return [['authorization', `bearer ${env.keys.test}`]];
    case 'empty':
      return [['Authorization', '']];
    default:
      return [['Authorization', `Bearer ${env.keys[auth]}`]];
  }
}

function routeContentType(c: Case): string | null {
  if (c.body?.t === 'multipart') {
    const b = c.body;
    return b.header === 'missing'
      ? 'multipart/form-data'
      : b.header === 'other'
        ? 'multipart/form-data; boundary=SomethingElse'
        : b.header === 'quoted'
          ? `multipart/form-data; boundary="${b.boundary}"`
          : `multipart/form-data; boundary=${b.boundary}`;
  }
  if (c.body?.t === 'form') return 'application/x-www-form-urlencoded';
  if (c.body?.t === 'echo' && ROUTES[c.route].body === 'multipart') return `multipart/form-data; boundary=${ECHO_BOUNDARY}`;
  return c.body ? 'application/json' : null;
}

export interface Built {
  req: RawRequest;
  /** The client lies about the body or leaves: the server may close without answering. */
  mayGoUnanswered: boolean;
}

/** The request a case describes, against the running server. */
export function buildRequest(c: Case, env: Env): Built {
  const encoded = encodedBody(c, env);
  const headers: [string, string][] = [...authHeaders(c.auth, env)];
  const ct = c.contentType === 'route' ? routeContentType(c) : c.contentType;
  if (ct !== null) headers.push(['Content-Type', ct]);
  if (encoded?.label !== null && encoded?.label !== undefined) headers.push(['Content-Encoding', encoded.label]);
  if (c.body?.t === 'form' && env.portalForm && c.body.csrf !== 'none') headers.push(['Cookie', env.portalForm.cookie]);
  if (c.body?.t === 'echo' && c.body.idem !== undefined) headers.push(['Idempotency-Key', c.body.idem]);
  headers.push(...c.headers);
  let body = encoded?.bytes;
  let mayGoUnanswered = c.abortAt !== undefined;
  if (body) {
    switch (c.framing) {
      case 'chunked':
      case 'bad-chunk':
        headers.push(['Transfer-Encoding', 'chunked']);
        body = Buffer.concat([
          Buffer.from(`${c.framing === 'bad-chunk' ? 'zz' : body.length.toString(16)}\r\n`),
          body,
          Buffer.from('\r\n0\r\n\r\n'),
        ]);
        break;
      case 'short-length':
        headers.push(['Content-Length', String(Math.floor(body.length / 2))]);
        break;
      case 'long-length':
        // The server would wait for bytes that never come: the client sends what it has and leaves.
        headers.push(['Content-Length', String(body.length + 100)]);
        mayGoUnanswered = true;
        break;
      case 'length-and-chunked':
        headers.push(['Content-Length', String(body.length)], ['Transfer-Encoding', 'chunked']);
        break;
      case 'none':
      case 'length':
        break;
    }
  }
  const req: RawRequest = {
    method: c.method ?? ROUTES[c.route].method,
    path: routePath(c, env),
    headers,
    ...(body ? { body } : {}),
    contentLength: c.framing === 'length',
    ...(c.abortAt !== undefined && body ? { abortAfter: Math.floor(body.length * c.abortAt) } : {}),
    ...(c.framing === 'long-length' ? { abortAfter: body?.length ?? 0 } : {}),
  };
  return { req, mayGoUnanswered };
}

/** A request as text for a failure message: the head in full, the body's length and start. */
export function describeRequest(req: RawRequest): string {
  const head = [
    `${req.method} ${req.path.length > 300 ? `${req.path.slice(0, 300)}... (${req.path.length} chars)` : req.path}`,
    ...req.headers.map(([n, v]) => `${n}: ${v.length > 200 ? `${v.slice(0, 200)}... (${v.length} chars)` : v}`),
  ];
  const body = req.body
    ? `\n[body: ${req.body.length} bytes${req.abortAfter !== undefined ? `, client leaves after ${req.abortAfter}` : ''}] ${JSON.stringify(req.body.subarray(0, 300).toString('latin1'))}${req.body.length > 300 ? '...' : ''}`
    : '';
  return `${head.join('\n')}${body}`;
}
