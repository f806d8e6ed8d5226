/**
 * A local stand-in for Google, speaking the real protocols so the real googleapis client runs:
 * - an OAuth 2.0 token endpoint for the service-account JWT bearer grant, which verifies the
 *   RS256 assertion against the public half of a key pair made here;
 * - the Sheets API v4 endpoints Covercheck uses (spreadsheets.get, spreadsheets.batchUpdate with addSheet,
 *   values.get, values.update, values.batchUpdate, values.clear, developerMetadata.search) on in-memory grids;
 * - developer metadata as an editor adds it (addDeveloperMetadata: what the add-on does with
 *   Spreadsheet.addDeveloperMetadata), and sharing: a spreadsheet can be kept from the service account.
 * Calls are recorded with timestamps; failures (429, 500) can be queued per endpoint, and so can
 * silence: a request that is accepted and never answered (`unanswered`), as a stalled connection is.
 *
 * Rules enforced as Google documents them (a test in test/sheets/fake-google.test.ts breaks each):
 * - Sheets API reference, spreadsheets.developerMetadata.search and DataFilter: a DataFilter holds
 *   exactly one of developerMetadataLookup, a1Range, gridRange (union field `filter`); a lookup
 *   selects the metadata matching *all* the fields it specifies; the response lists the entries
 *   matching *any* filter, each with the filters it matched (MatchedDeveloperMetadata).
 * - DataFilter, DeveloperMetadataLookup: locationMatchingStrategy needs a metadataLocation;
 *   locationType may not be SPREADSHEET with INTERSECTING_LOCATION (the default) nor with a
 *   non-spreadsheet location, and must be unset with EXACT_LOCATION.
 * - Apps Script reference, DeveloperMetadataVisibility: PROJECT-visible metadata "is only visible
 *   to and accessible by the developer project that created the metadata"; DOCUMENT-visible
 *   metadata "is accessible from any developer project with access to the document". The service
 *   account belongs to the key file's project_id; the add-on's entries come from its own project.
 * - A spreadsheet not shared with the caller answers 403 PERMISSION_DENIED; one that does not
 *   exist, 404 NOT_FOUND (Sheets API, standard error responses).
 * - An empty search result is `{}`: proto3 JSON leaves out an empty repeated field.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

export type Grid = string[][];
export interface Call {
  method: string;
  kind:
    'get' | 'batchUpdate' | 'values.get' | 'values.update' | 'values.batchUpdate' | 'values.clear' | 'developerMetadata.search' | 'token';
  spreadsheetId: string | null;
  at: number;
}

export type MetadataVisibility = 'DOCUMENT' | 'PROJECT';
/** A location as the Sheets API writes it: the whole spreadsheet, or one sheet (by title here, as the API's sheetId). */
export type MetadataLocation = { locationType: 'SPREADSHEET'; spreadsheet: true } | { locationType: 'SHEET'; sheetId: number };
/** The Sheets API's DeveloperMetadata resource. */
export interface DeveloperMetadata {
  metadataId: number;
  metadataKey: string;
  metadataValue?: string;
  location: MetadataLocation;
  visibility: MetadataVisibility;
}
/** The project the add-on (an Apps Script project) writes metadata as: not the service account's. */
export const ADDON_PROJECT = 'covercheck-addon-script';

interface Lookup {
  locationType?: string;
  metadataLocation?: { spreadsheet?: boolean; sheetId?: number; dimensionRange?: unknown };
  locationMatchingStrategy?: string;
  metadataId?: number;
  metadataKey?: string;
  metadataValue?: string;
  visibility?: string;
}

class BadRequest extends Error {}

function colIndex(letters: string): number {
  let n = 0;
  for (const ch of letters) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n - 1;
}

/** Parses `'Sheet'!A1:B2`, `'Sheet'!A:A`, `Sheet!A1`. */
function parseRange(range: string): { sheet: string; c1: number; r1: number | null; c2: number; r2: number | null } {
  const m = /^(?:'((?:[^']|'')+)'|([^!]+))!([A-Z]+)(\d+)?(?::([A-Z]+)(\d+)?)?$/.exec(range);
  if (!m) throw new Error(`bad range ${range}`);
  const sheet = (m[1] ?? m[2]!).replace(/''/g, "'");
  const c1 = colIndex(m[3]!);
  const r1 = m[4] ? Number(m[4]) - 1 : null;
  const c2 = m[5] ? colIndex(m[5]) : c1;
  const r2 = m[6] ? Number(m[6]) - 1 : m[5] ? null : r1;
  return { sheet, c1, r1, c2, r2 };
}

export class FakeGoogle {
  readonly spreadsheets = new Map<string, Map<string, Grid>>();
  readonly calls: Call[] = [];
  readonly failures: { kind: Call['kind']; status: number; retryAfter?: number }[] = [];
  /** Each entry holds one request of that kind (of that spreadsheet, when named) open without an answer (until stop()). */
  readonly unanswered: (Call['kind'] | { kind: Call['kind']; spreadsheetId: string })[] = [];
  readonly serviceEmail = 'covercheck-writer@covercheck-test.iam.gserviceaccount.com';
  /** The service account's Google Cloud project (project_id in its key file). */
  readonly project = 'covercheck-test';
  /** Developer metadata per spreadsheet, with the project that created each entry. */
  private readonly metadata = new Map<string, { entry: DeveloperMetadata; project: string }[]>();
  /** Spreadsheets that exist but are not shared with the service account. */
  private readonly unshared = new Set<string>();
  private readonly keys = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  private readonly tokens = new Set<string>();
  private server = http.createServer((req, res) => void this.handle(req, res));
  url = '';
  keyFile = '';

  async start(): Promise<void> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'covercheck-sa-'));
    this.keyFile = path.join(dir, 'service-account.json');
    fs.writeFileSync(
      this.keyFile,
      JSON.stringify({
        type: 'service_account',
        project_id: this.project,
        private_key_id: 'test',
        private_key: this.keys.privateKey.export({ type: 'pkcs8', format: 'pem' }),
        client_email: this.serviceEmail,
        client_id: '1',
        token_uri: `${this.url}/token`,
      }),
    );
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
    fs.rmSync(path.dirname(this.keyFile), { recursive: true, force: true });
  }

  sheet(spreadsheetId: string, title: string, grid: Grid = []): Grid {
    const book = this.spreadsheets.get(spreadsheetId) ?? new Map<string, Grid>();
    book.set(title, grid);
    this.spreadsheets.set(spreadsheetId, book);
    return grid;
  }

  /**
   * Adds developer metadata at the spreadsheet, as an editor does (the add-on's
   * Spreadsheet.addDeveloperMetadata(key, value, visibility)); `project` is the creator's project.
   */
  addDeveloperMetadata(
    spreadsheetId: string,
    m: { key: string; value?: string; visibility: MetadataVisibility; project?: string; sheet?: string },
  ): DeveloperMetadata {
    const book = this.spreadsheets.get(spreadsheetId);
    if (!book) throw new Error(`no spreadsheet ${spreadsheetId}`);
    // "Developer metadata must always have a key specified" and "must always have visibility specified" (DeveloperMetadata resource).
    if (!m.key) throw new Error('developer metadata needs a key');
    if (m.visibility !== 'DOCUMENT' && m.visibility !== 'PROJECT')
      throw new Error(`visibility must be DOCUMENT or PROJECT, not ${String(m.visibility)}`);
    let location: MetadataLocation = { locationType: 'SPREADSHEET', spreadsheet: true };
    if (m.sheet !== undefined) {
      const index = [...book.keys()].indexOf(m.sheet);
      if (index < 0) throw new Error(`no sheet ${m.sheet}`);
      location = { locationType: 'SHEET', sheetId: index };
    }
    const list = this.metadata.get(spreadsheetId) ?? [];
    const ids = new Set(list.map((x) => x.entry.metadataId));
    let metadataId: number;
    // "IDs may be specified when metadata is created, otherwise one will be randomly generated and assigned. Must be positive."
    do metadataId = crypto.randomInt(1, 2 ** 31 - 1);
    while (ids.has(metadataId));
    const entry: DeveloperMetadata = {
      metadataId,
      metadataKey: m.key,
      ...(m.value !== undefined ? { metadataValue: m.value } : {}),
      location,
      visibility: m.visibility,
    };
    list.push({ entry, project: m.project ?? ADDON_PROJECT });
    this.metadata.set(spreadsheetId, list);
    return structuredClone(entry);
  }

  /** Removes developer metadata, as an editor does (DeveloperMetadata.remove()); false when there was none. */
  removeDeveloperMetadata(spreadsheetId: string, metadataId: number): boolean {
    const list = this.metadata.get(spreadsheetId) ?? [];
    const i = list.findIndex((x) => x.entry.metadataId === metadataId);
    if (i >= 0) list.splice(i, 1);
    return i >= 0;
  }

  /** Every entry of a spreadsheet, whoever may see it (the stand-in's own view, for tests). */
  developerMetadata(spreadsheetId: string): DeveloperMetadata[] {
    return (this.metadata.get(spreadsheetId) ?? []).map((x) => structuredClone(x.entry));
  }

  /** Keeps the spreadsheet from the service account (`false`), or shares it again. */
  share(spreadsheetId: string, shared: boolean): void {
    if (shared) this.unshared.delete(spreadsheetId);
    else this.unshared.add(spreadsheetId);
  }

  grid(spreadsheetId: string, title: string): Grid {
    return this.spreadsheets.get(spreadsheetId)!.get(title)!;
  }

  count(kind: Call['kind'], spreadsheetId?: string): number {
    return this.calls.filter((c) => c.kind === kind && (!spreadsheetId || c.spreadsheetId === spreadsheetId)).length;
  }

  private async body(req: http.IncomingMessage): Promise<string> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }

  private send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url!, this.url);
    const text = await this.body(req);
    if (url.pathname === '/token') return this.silent('token', null) ? undefined : this.token(text, res);
    if (!this.tokens.has((req.headers.authorization ?? '').replace(/^Bearer /, ''))) {
      return this.send(res, 401, {
        error: { code: 401, message: 'Request had invalid authentication credentials.', status: 'UNAUTHENTICATED' },
      });
    }
    const m = /^\/v4\/spreadsheets\/([^/]+?)(?:\/values(?::batchUpdate|\/([^/]+?))?|\/developerMetadata:search)?$/.exec(url.pathname);
    if (!m) return this.send(res, 404, { error: { code: 404, message: 'Not found' } });
    // spreadsheets.batchUpdate is `/v4/spreadsheets/{id}:batchUpdate`, which the pattern reads as one id.
    const sheetBatch = !m[2] && !url.pathname.includes('/values') && m[1]!.endsWith(':batchUpdate');
    const id = decodeURIComponent(sheetBatch ? m[1]!.slice(0, -':batchUpdate'.length) : m[1]!);
    const rawRange = m[2] ? decodeURIComponent(m[2]) : null;
    const kind: Call['kind'] = sheetBatch
      ? 'batchUpdate'
      : url.pathname.endsWith('/developerMetadata:search')
        ? 'developerMetadata.search'
        : url.pathname.endsWith(':batchUpdate')
          ? 'values.batchUpdate'
          : rawRange?.endsWith(':clear')
            ? 'values.clear'
            : rawRange && req.method === 'PUT'
              ? 'values.update'
              : rawRange
                ? 'values.get'
                : 'get';
    this.calls.push({ method: req.method!, kind, spreadsheetId: id, at: Date.now() });
    if (this.silent(kind, id)) return;
    const failure = this.failures.findIndex((f) => f.kind === kind);
    if (failure >= 0) {
      const f = this.failures.splice(failure, 1)[0]!;
      return this.send(
        res,
        f.status,
        { error: { code: f.status, message: 'Quota exceeded', status: 'RESOURCE_EXHAUSTED' } },
        f.retryAfter ? { 'retry-after': String(f.retryAfter) } : {},
      );
    }
    const book = this.spreadsheets.get(id);
    if (!book) return this.send(res, 404, { error: { code: 404, message: 'Requested entity was not found.', status: 'NOT_FOUND' } });
    if (this.unshared.has(id))
      return this.send(res, 403, { error: { code: 403, message: 'The caller does not have permission', status: 'PERMISSION_DENIED' } });
    try {
      if (kind === 'developerMetadata.search')
        return this.send(res, 200, this.search(id, JSON.parse(text || '{}') as { dataFilters?: unknown[] }));
      if (kind === 'get')
        return this.send(res, 200, { spreadsheetId: id, sheets: [...book.keys()].map((title) => ({ properties: { title } })) });
      if (kind === 'batchUpdate') {
        // Only addSheet, as the Sheets API answers it: a title already taken is a 400.
        const requests = (JSON.parse(text || '{}') as { requests?: { addSheet?: { properties?: { title?: string } } }[] }).requests ?? [];
        const replies = requests.map((r) => {
          const title = r.addSheet?.properties?.title;
          if (!title) throw new BadRequest('only addSheet requests with a title are implemented by this stand-in');
          if (book.has(title)) throw new BadRequest(`A sheet with the name "${title}" already exists. Please enter another name.`);
          book.set(title, []);
          return { addSheet: { properties: { title, sheetId: book.size - 1 } } };
        });
        return this.send(res, 200, { spreadsheetId: id, replies });
      }
      if (kind === 'values.get') {
        const r = parseRange(rawRange!);
        const grid = book.get(r.sheet);
        if (!grid) return this.send(res, 400, { error: { code: 400, message: `Unable to parse range: ${rawRange}` } });
        const cols: string[][] = [];
        for (let c = r.c1; c <= r.c2; c++) {
          const col = grid.map((row) => row[c] ?? '');
          while (col.length && col.at(-1) === '') col.pop();
          cols.push(col);
        }
        return this.send(res, 200, { range: rawRange, majorDimension: 'COLUMNS', values: cols });
      }
      if (kind === 'values.clear') {
        const r = parseRange(rawRange!.slice(0, -':clear'.length));
        const grid = book.get(r.sheet)!;
        for (const row of grid) for (let c = r.c1; c <= r.c2; c++) if (c < row.length) row[c] = '';
        return this.send(res, 200, { spreadsheetId: id, clearedRange: rawRange });
      }
      const writes: { range: string; values: unknown[][] }[] =
        kind === 'values.update' ? [{ range: rawRange!, values: JSON.parse(text).values }] : JSON.parse(text).data;
      let cells = 0;
      for (const w of writes) {
        const r = parseRange(w.range);
        const grid = book.get(r.sheet);
        if (!grid) return this.send(res, 400, { error: { code: 400, message: `Unable to parse range: ${w.range}` } });
        w.values.forEach((rowValues, i) =>
          rowValues.forEach((v, j) => {
            if (v === null) return; // null leaves the cell as it is, as the API documents
            const row = (r.r1 ?? 0) + i;
            while (grid.length <= row) grid.push([]);
            const cells_ = grid[row]!;
            while (cells_.length <= r.c1 + j) cells_.push('');
            cells_[r.c1 + j] = String(v);
            cells++;
          }),
        );
      }
      return this.send(res, 200, { spreadsheetId: id, totalUpdatedCells: cells, updatedCells: cells });
    } catch (err) {
      return this.send(res, 400, {
        error: { code: 400, message: (err as Error).message, ...(err instanceof BadRequest ? { status: 'INVALID_ARGUMENT' } : {}) },
      });
    }
  }

  /** spreadsheets.developerMetadata.search for the service account's project. */
  private search(
    spreadsheetId: string,
    body: { dataFilters?: unknown[] },
  ): { matchedDeveloperMetadata?: { developerMetadata: DeveloperMetadata; dataFilters: unknown[] }[] } {
    const filters = body.dataFilters ?? [];
    if (!Array.isArray(filters)) throw new BadRequest('dataFilters must be a list of DataFilter');
    const lookups = filters.map((f) => this.lookupOf(f));
    // PROJECT-visible entries of another project do not exist for this caller (DeveloperMetadataVisibility).
    const visible = (this.metadata.get(spreadsheetId) ?? []).filter((x) => x.entry.visibility === 'DOCUMENT' || x.project === this.project);
    const matched = visible
      .map(({ entry }) => ({
        developerMetadata: structuredClone(entry),
        dataFilters: filters.filter((_, i) => this.matches(entry, lookups[i]!)),
      }))
      .filter((x) => x.dataFilters.length > 0);
    return matched.length ? { matchedDeveloperMetadata: matched } : {};
  }

  private lookupOf(filter: unknown): Lookup {
    const f = (filter ?? {}) as Record<string, unknown>;
    const kinds = ['developerMetadataLookup', 'a1Range', 'gridRange'].filter((k) => f[k] !== undefined);
    if (kinds.length !== 1)
      throw new BadRequest(
        `A DataFilter holds exactly one of developerMetadataLookup, a1Range, gridRange; got ${kinds.join(', ') || 'none'}`,
      );
    if (kinds[0] !== 'developerMetadataLookup') throw new BadRequest(`${kinds[0]} filters are not implemented by this stand-in`);
    const l = f.developerMetadataLookup as Lookup;
    const strategy = l.locationMatchingStrategy;
    if (strategy !== undefined && strategy !== 'EXACT_LOCATION' && strategy !== 'INTERSECTING_LOCATION')
      throw new BadRequest(`Invalid locationMatchingStrategy ${String(strategy)}`);
    if (strategy !== undefined && !l.metadataLocation) throw new BadRequest('locationMatchingStrategy requires a metadataLocation');
    if (strategy === 'EXACT_LOCATION' && l.locationType !== undefined)
      throw new BadRequest('locationType must be unspecified when locationMatchingStrategy is EXACT_LOCATION');
    const spreadsheetLocation = l.metadataLocation ? l.metadataLocation.spreadsheet === true : undefined;
    if (
      l.locationType === 'SPREADSHEET' &&
      ((strategy ?? 'INTERSECTING_LOCATION') === 'INTERSECTING_LOCATION' || spreadsheetLocation === false)
    ) {
      throw new BadRequest('locationType SPREADSHEET cannot be used with INTERSECTING_LOCATION or a non-spreadsheet metadataLocation');
    }
    if (l.metadataLocation?.dimensionRange !== undefined)
      throw new BadRequest('row and column locations are not implemented by this stand-in');
    return l;
  }

  /** Every field the lookup specifies must match (DeveloperMetadataLookup). */
  private matches(e: DeveloperMetadata, l: Lookup): boolean {
    if (l.metadataId !== undefined && l.metadataId !== e.metadataId) return false;
    if (l.metadataKey !== undefined && l.metadataKey !== e.metadataKey) return false;
    if (l.metadataValue !== undefined && l.metadataValue !== e.metadataValue) return false;
    if (l.visibility !== undefined && l.visibility !== e.visibility) return false;
    if (l.locationType !== undefined && l.locationType !== e.location.locationType) return false;
    if (l.metadataLocation) {
      // Only spreadsheet and whole-sheet locations exist here, and "spreadsheet metadata cannot
      // intersect any other developer metadata location": intersecting and exact agree.
      const want = l.metadataLocation;
      if (want.spreadsheet === true) return e.location.locationType === 'SPREADSHEET';
      return e.location.locationType === 'SHEET' && e.location.sheetId === want.sheetId;
    }
    return true;
  }

  /** True when a request of this kind is to go unanswered (the entry is used up). */
  private silent(kind: Call['kind'], spreadsheetId: string | null): boolean {
    const i = this.unanswered.findIndex((u) => (typeof u === 'string' ? u === kind : u.kind === kind && u.spreadsheetId === spreadsheetId));
    if (i < 0) return false;
    this.unanswered.splice(i, 1);
    if (kind === 'token') this.calls.push({ method: 'POST', kind, spreadsheetId: null, at: Date.now() });
    return true;
  }

  private token(text: string, res: http.ServerResponse): void {
    const form = new URLSearchParams(text);
    const assertion = form.get('assertion') ?? '';
    const [h, p, sig] = assertion.split('.');
    const ok =
      form.get('grant_type') === 'urn:ietf:params:oauth:grant-type:jwt-bearer' &&
      !!sig &&
      crypto.verify('RSA-SHA256', Buffer.from(`${h}.${p}`), this.keys.publicKey, Buffer.from(sig, 'base64url'));
    const claims = ok ? (JSON.parse(Buffer.from(p!, 'base64url').toString()) as { iss: string; scope: string }) : null;
    this.calls.push({ method: 'POST', kind: 'token', spreadsheetId: null, at: Date.now() });
    if (!claims || claims.iss !== this.serviceEmail || !claims.scope.includes('spreadsheets'))
      return this.send(res, 400, { error: 'invalid_grant' });
    const token = crypto.randomBytes(16).toString('hex');
    this.tokens.add(token);
    this.send(res, 200, { access_token: token, expires_in: 3600, token_type: 'Bearer' });
  }
}
