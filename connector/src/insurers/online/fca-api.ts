/**
 * The FCA Financial Services Register API (V0.1): the three calls the UK insurer check needs.
 *   GET {base}/Search?q={name}&type=firm         firms by name (20 a page; the first page is read)
 *   GET {base}/Firm/{FRN}                        one firm's record
 *   GET {base}/Firm/{FRN}/Permissions[?pgnp=N]   its permissions, 20 a page
 * Each request carries the operator's registration as X-Auth-Email and X-Auth-Key.
 *
 * Every answer seen is HTTP 200 with the envelope {"Status", "Message", "ResultInfo", "Data"}, and
 * Status says what happened:
 *   FSR-API-04-01-00 search hits (Data: [{"Name": "X Limited (Postcode: ...)", "Reference Number",
 *                    "Status", "Type of business or Individual": "Firm", "URL"}]); -04-01-11 none
 *                    (Data null); -04-01-21 search text refused (it holds "*" or "'")
 *   FSR-API-02-01-00 firm found (Data: [{"FRN", "Organisation Name", "Status", "Business Type", ...}]);
 *                    -02-01-11 no such firm (Data null); -02-01-21 FRN refused
 *   FSR-API-02-03-00 permissions (Data: {"<permission name>": [{"Customer Type": [...]},
 *                    {"Investment Type": [...]}, {"Limitation": [...]}]}, ResultInfo {page, per_page,
 *                    total_count, Next}); -02-03-11 none recorded
 *   FSR-API-01-01-11 unauthorised, -01-01-21 API e-mail and key not found
 * Sources: responses recorded from the live API in github.com/release-art/fca-api (commit 315b106),
 * tests/units/test_raw/resources/test_firm_methods.py/TestFirmMethods/test_get_firm_success/
 * v0_1_firm_get_f88eb481.json, test_get_firm_failure/v0_1_firm_get_f51ca63d.json,
 * test_get_firm_permissions_success/firm_permissions_get_3c16b08f.json, test_get_firm_permissions_failure/
 * firm_permissions_get_fd1bc6a8.json; test_search.py/TestSearchFunctionality/test_search_frn_returns_unique_firm/
 * and test_client_core.py/TestFinancialServicesRegisterApiClientCore/test_common_search_success_2/ (several
 * hits, none); permission pages in tests/units/test_client/resources/test_get_firm_resource.py/
 * TestRandomFirmDetails/test_get_firm_permissions[122702]/; the status codes in src/fca_api/raw_status_codes.py.
 * The headers and the rate limit (50 requests per 10 s per user; past it HTTP 429 and a minute's
 * block) in github.com/sr-murthy/fsrapiclient docs/sources/fs-register-api.rst. The HTTP status of a
 * refused key is not recorded, so both a 401/403 and the 01-01 codes are read as one.
 */
import { z } from 'zod';
import type { LimitedCalls } from '../../redis/limited-calls.js';

/** The upstream could not answer usefully; `blockedForMs` is how long it asked not to be called (429). */
export class FcaUnavailable extends Error {
  constructor(
    message: string,
    readonly blockedForMs?: number,
  ) {
    super(message);
  }
}

/** One lookup's calls: its deadline, and how many of its calls have started (so a timeout can say where it was). */
export interface Lookup {
  signal: AbortSignal;
  started: number;
}

export interface FcaSearchHit {
  /** As listed, with the " (Postcode: ...)" the register appends. */
  name: string;
  frn: string;
  status: string;
}

export interface FcaPermissions {
  /** Permission name -> its details as listed. */
  list: Map<string, unknown>;
  /** False when pages were left unread (more than MAX_PERMISSION_PAGES). */
  complete: boolean;
}

export interface FcaApi {
  searchFirms(text: string, lookup: Lookup): Promise<FcaSearchHit[]>;
  /** The firm's record (an API `Data` item), or null when the register has no such firm. */
  firm(frn: string, lookup: Lookup): Promise<Record<string, unknown> | null>;
  permissions(frn: string, lookup: Lookup): Promise<FcaPermissions>;
}

export interface FcaApiOptions {
  baseUrl: string;
  email: string;
  key: string;
  fetch: typeof fetch;
  calls: LimitedCalls;
}

/** Permission lists run to 42 entries for a large bank (3 pages); a longer one is not read to the end. */
export const MAX_PERMISSION_PAGES = 5;
const AUTH_CODES = new Set(['FSR-API-01-01-11', 'FSR-API-01-01-21']);
const DEFAULT_BLOCK_MS = 60_000;

const ZCount = z.coerce.number().int().nonnegative();
const ZEnvelope = z.object({
  Status: z.string(),
  Message: z.string().nullish(),
  ResultInfo: z
    .object({ page: ZCount, per_page: ZCount.min(1), total_count: ZCount })
    .passthrough()
    .nullish(),
  Data: z.unknown(),
});
type Envelope = z.infer<typeof ZEnvelope>;
const ZSearchHits = z.array(
  z.object({
    Name: z.string().min(1),
    'Reference Number': z.string().regex(/^\d{6,7}$/),
    Status: z.string(),
    'Type of business or Individual': z.string().optional(),
  }),
);
const ZFirms = z.array(z.object({ FRN: z.string() }).passthrough()).min(1);
const ZPermissions = z.record(z.string(), z.unknown());

/**
 * The search refuses a text holding "*" or "'" (FSR-API-04-01-21). Apostrophes go without a trace
 * ("Lloyd's" -> "Lloyds"), other punctuation but & - . , becomes a space.
 */
export function searchText(name: string): string {
  return name
    .replace(/['\u2019`]/g, '')
    .replace(/[^\p{L}\p{N}&.,\- ]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * The largest answer read. A search page of 20 firms or a permissions page is a few kilobytes; an answer
 * far past that is not the register's, and holding it whole would let one upstream fill the memory.
 */
export const MAX_BODY_BYTES = 1024 * 1024;

/** The body as text, or FcaUnavailable once it passes `max` bytes (the rest is not read). */
async function readAtMost(res: Response, max: number): Promise<string> {
  if (Number(res.headers.get('content-length') ?? 0) > max) {
    await res.body?.cancel();
    throw new FcaUnavailable(`answered more than ${max} bytes`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of res.body ?? []) {
    size += chunk.byteLength;
    if (size > max) throw new FcaUnavailable(`answered more than ${max} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function retryAfterMs(header: string | null): number {
  const s = header ? Number(header) : NaN;
  return Number.isFinite(s) && s >= 0 ? Math.min(s, 3600) * 1000 : DEFAULT_BLOCK_MS;
}

export function fcaApi(opts: FcaApiOptions): FcaApi {
  const headers = { accept: 'application/json', 'X-Auth-Email': opts.email, 'X-Auth-Key': opts.key };
  const credentialsRefused = (how: string) => new FcaUnavailable(`the FCA register refused the API e-mail and key (${how})`);

  async function get(path: string, lookup: Lookup): Promise<Envelope> {
    const { signal } = lookup;
    const res = await opts.calls
      .run(
        signal,
        async () => {
          const r = await opts.fetch(`${opts.baseUrl}${path}`, { signal, headers });
          // Read inside the slot: a body that trickles in still occupies the upstream.
          return { status: r.status, text: await readAtMost(r, MAX_BODY_BYTES), retryAfter: r.headers.get('retry-after') };
        },
        () => lookup.started++,
      )
      .catch((err: unknown) => {
        if (signal.aborted || err instanceof FcaUnavailable) throw err;
        throw new FcaUnavailable(`unreachable (${(err as Error).message})`);
      });
    if (res.status === 429) throw new FcaUnavailable('rate limited by the FCA register (HTTP 429)', retryAfterMs(res.retryAfter));
    if (res.status === 401 || res.status === 403) throw credentialsRefused(`HTTP ${res.status}`);
    let body: unknown = null;
    try {
      body = JSON.parse(res.text);
    } catch {
      // Judged below with the status.
    }
    const parsed = ZEnvelope.safeParse(body);
    if (parsed.success && AUTH_CODES.has(parsed.data.Status)) throw credentialsRefused(parsed.data.Status);
    if (res.status !== 200) throw new FcaUnavailable(`answered HTTP ${res.status}`);
    if (!parsed.success) throw new FcaUnavailable('answered with an unexpected body');
    return parsed.data;
  }

  const unexpected = (e: Envelope) => new FcaUnavailable(`answered ${e.Status}${e.Message ? ` (${e.Message.slice(0, 100)})` : ''}`);

  function permissionPage(e: Envelope, into: Map<string, unknown>): void {
    const data = ZPermissions.safeParse(e.Data);
    if (!data.success) throw new FcaUnavailable('answered with an unexpected body');
    for (const [name, details] of Object.entries(data.data)) into.set(name, details);
  }

  return {
    async searchFirms(text, lookup) {
      const e = await get(`/Search?${new URLSearchParams({ q: searchText(text), type: 'firm' })}`, lookup);
      if (e.Status === 'FSR-API-04-01-11') return [];
      if (e.Status === 'FSR-API-04-01-21') throw new FcaUnavailable('the FCA register refused the search text');
      if (e.Status !== 'FSR-API-04-01-00') throw unexpected(e);
      const hits = ZSearchHits.safeParse(e.Data);
      if (!hits.success) throw new FcaUnavailable('answered with an unexpected body');
      return hits.data
        .filter((h) => (h['Type of business or Individual'] ?? 'Firm') === 'Firm')
        .map((h) => ({ name: h.Name, frn: h['Reference Number'], status: h.Status }));
    },

    async firm(frn, lookup) {
      const e = await get(`/Firm/${encodeURIComponent(frn)}`, lookup);
      if (e.Status === 'FSR-API-02-01-11') return null;
      if (e.Status !== 'FSR-API-02-01-00') throw unexpected(e);
      const firms = ZFirms.safeParse(e.Data);
      if (!firms.success || firms.data[0]!.FRN !== frn) throw new FcaUnavailable('answered with an unexpected body');
      return firms.data[0]!;
    },

    async permissions(frn, lookup) {
      const path = `/Firm/${encodeURIComponent(frn)}/Permissions`;
      const list = new Map<string, unknown>();
      const first = await get(path, lookup);
      if (first.Status === 'FSR-API-02-03-11') return { list, complete: true };
      if (first.Status !== 'FSR-API-02-03-00') throw unexpected(first);
      permissionPage(first, list);
      const info = first.ResultInfo;
      const pages = info ? Math.ceil(info.total_count / info.per_page) : 1;
      const read = Math.min(pages, MAX_PERMISSION_PAGES);
      // Later pages are the page number in our own base URL, not the response's "Next" link, which names the public host.
      const rest = await Promise.all(Array.from({ length: read - 1 }, (_, i) => get(`${path}?pgnp=${i + 2}`, lookup)));
      for (const page of rest) {
        if (page.Status !== 'FSR-API-02-03-00') throw unexpected(page);
        permissionPage(page, list);
      }
      return { list, complete: pages <= MAX_PERMISSION_PAGES };
    },
  };
}
