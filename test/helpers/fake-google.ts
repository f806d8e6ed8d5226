/**
 * A local stand-in for Google, speaking the real protocols so the real googleapis client runs:
 * - an OAuth 2.0 token endpoint for the service-account JWT bearer grant, which verifies the
 *   RS256 assertion against the public half of a key pair made here;
 * - the Sheets API v4 endpoints Covercheck uses (spreadsheets.get, values.get, values.update,
 *   values.batchUpdate, values.clear) on in-memory grids.
 * Calls are recorded with timestamps; failures (429, 500) can be queued per endpoint.
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
  kind: 'get' | 'values.get' | 'values.update' | 'values.batchUpdate' | 'values.clear' | 'token';
  spreadsheetId: string | null;
  at: number;
}

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
  readonly serviceEmail = 'covercheck-writer@covercheck-test.iam.gserviceaccount.com';
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
        project_id: 'covercheck-test',
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
    if (url.pathname === '/token') return this.token(text, res);
    if (!this.tokens.has((req.headers.authorization ?? '').replace(/^Bearer /, ''))) {
      return this.send(res, 401, { error: { code: 401, message: 'Request had invalid authentication credentials.', status: 'UNAUTHENTICATED' } });
    }
    const m = /^\/v4\/spreadsheets\/([^/]+?)(?:\/values(?::batchUpdate|\/([^/]+?))?)?$/.exec(url.pathname);
    if (!m) return this.send(res, 404, { error: { code: 404, message: 'Not found' } });
    const id = decodeURIComponent(m[1]!);
    const rawRange = m[2] ? decodeURIComponent(m[2]) : null;
    const kind: Call['kind'] = url.pathname.endsWith(':batchUpdate')
      ? 'values.batchUpdate'
      : rawRange?.endsWith(':clear')
        ? 'values.clear'
        : rawRange && req.method === 'PUT'
          ? 'values.update'
          : rawRange
            ? 'values.get'
            : 'get';
    this.calls.push({ method: req.method!, kind, spreadsheetId: id, at: Date.now() });
    const failure = this.failures.findIndex((f) => f.kind === kind);
    if (failure >= 0) {
      const f = this.failures.splice(failure, 1)[0]!;
      return this.send(res, f.status, { error: { code: f.status, message: 'Quota exceeded', status: 'RESOURCE_EXHAUSTED' } }, f.retryAfter ? { 'retry-after': String(f.retryAfter) } : {});
    }
    const book = this.spreadsheets.get(id);
    if (!book) return this.send(res, 404, { error: { code: 404, message: 'Requested entity was not found.', status: 'NOT_FOUND' } });
    try {
      if (kind === 'get') return this.send(res, 200, { spreadsheetId: id, sheets: [...book.keys()].map((title) => ({ properties: { title } })) });
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
      const writes: { range: string; values: unknown[][] }[] = kind === 'values.update' ? [{ range: rawRange!, values: JSON.parse(text).values }] : JSON.parse(text).data;
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
      return this.send(res, 400, { error: { code: 400, message: (err as Error).message } });
    }
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
    if (!claims || claims.iss !== this.serviceEmail || !claims.scope.includes('spreadsheets')) return this.send(res, 400, { error: 'invalid_grant' });
    const token = crypto.randomBytes(16).toString('hex');
    this.tokens.add(token);
    this.send(res, 200, { access_token: token, expires_in: 3600, token_type: 'Bearer' });
  }
}
