/**
 * A small local fake of the connector's binding protocol (issue 17 item 5), for testing the
 * add-on's side until the connector has it: it answers the four binding routes, refuses a
 * sheet_target or a schedule for a spreadsheet not bound to the key (403 sheet_not_bound), and
 * passes every other request to the real connector at `upstream`. It verifies a binding by
 * looking for the token among the spreadsheet's developer metadata, which the test mirrors in as
 * the add-on writes it (POST/DELETE /metadata?id=<spreadsheetId> on the control server, as the
 * connector child's control route will take it). Run as a child process: prints {url, control}.
 * argv[2]: upstream URL.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const upstream = process.argv[2]!;
interface Binding {
  binding_id: string;
  key: string;
  spreadsheet_id: string;
  token: string;
  status: 'pending' | 'active';
  created_at: string;
  verified_at: string | null;
}
const bindings: Binding[] = [];
/** spreadsheet id -> its DOCUMENT/PROJECT developer metadata as mirrored from the add-on. */
const metadata = new Map<string, { key: string; value: string; visibility: string }[]>();

const body = (req: http.IncomingMessage) =>
  new Promise<Buffer>((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
  });
const json = (res: http.ServerResponse, status: number, b?: unknown) => {
  if (b === undefined) return res.writeHead(status).end();
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(b));
};
const view = (b: Binding, withToken = false) => ({
  binding_id: b.binding_id,
  spreadsheet_id: b.spreadsheet_id,
  status: b.status,
  ...(withToken ? { metadata_key: 'covercheck.binding', metadata_value: b.token } : {}),
  created_at: b.created_at,
  verified_at: b.verified_at,
});
const proven = (b: Binding) => (metadata.get(b.spreadsheet_id) ?? []).some((m) => m.key === 'covercheck.binding' && m.value === b.token && m.visibility === 'DOCUMENT');
const notBound = (res: http.ServerResponse, id: string) =>
  json(res, 403, { error: 'sheet_not_bound', message: `Spreadsheet ${id} is not bound to this API key.`, code: 403 });

const control = http.createServer(async (req, res) => {
  const u = new URL(req.url!, 'http://x');
  const id = u.searchParams.get('id') ?? '';
  const b = await body(req);
  if (u.pathname !== '/metadata') return json(res, 404);
  const list = metadata.get(id) ?? [];
  if (req.method === 'POST') {
    const m = JSON.parse(b.toString('utf8')) as { key: string; value: string; visibility: string };
    metadata.set(id, [...list, m]);
    return json(res, 204);
  }
  if (req.method === 'DELETE') {
    metadata.set(id, list.filter((m) => !(m.key === u.searchParams.get('key') && m.value === u.searchParams.get('value'))));
    return json(res, 204);
  }
  if (req.method === 'GET') return json(res, 200, list);
  json(res, 404);
});

const server = http.createServer(async (req, res) => {
  const u = new URL(req.url!, 'http://x');
  const raw = await body(req);
  const key = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
  const mine = bindings.filter((x) => x.key === key);
  const parsed = () => (raw.length ? (JSON.parse(raw.toString('utf8')) as Record<string, any>) : {});
  const bound = (spreadsheetId: string) => mine.some((x) => x.spreadsheet_id === spreadsheetId && x.status === 'active' && proven(x));
  if (u.pathname === '/api/v1/sheets/bindings' && req.method === 'GET') return json(res, 200, { bindings: mine.map((x) => view(x)) });
  if (u.pathname === '/api/v1/sheets/bindings' && req.method === 'POST') {
    const b: Binding = { binding_id: `bnd_${crypto.randomBytes(6).toString('hex')}`, key, spreadsheet_id: String(parsed().spreadsheet_id), token: `cvb_${crypto.randomBytes(16).toString('hex')}`, status: 'pending', created_at: new Date().toISOString(), verified_at: null };
    bindings.push(b);
    return json(res, 201, view(b, true));
  }
  const m = /^\/api\/v1\/sheets\/bindings\/([^/]+)(\/verify)?$/.exec(u.pathname);
  if (m) {
    const b = mine.find((x) => x.binding_id === m[1]);
    if (!b) return json(res, 404, { error: 'not_found', message: `No binding ${m[1]} for this API key.`, code: 404 });
    if (m[2] && req.method === 'POST') {
      if (!proven(b)) return notBound(res, b.spreadsheet_id);
      b.status = 'active';
      b.verified_at = new Date().toISOString();
      return json(res, 200, view(b));
    }
    if (!m[2] && req.method === 'DELETE') {
      bindings.splice(bindings.indexOf(b), 1);
      return json(res, 204);
    }
  }
  if (req.method === 'POST' && u.pathname === '/api/v1/verify/batch') {
    const t = parsed().sheet_target as { spreadsheet_id?: string } | undefined;
    if (t?.spreadsheet_id && !bound(t.spreadsheet_id)) return notBound(res, t.spreadsheet_id);
  }
  if (req.method === 'POST' && u.pathname === '/api/v1/sheets/schedules' && !bound(String(parsed().spreadsheet_id))) return notBound(res, String(parsed().spreadsheet_id));
  const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !['host', 'content-length', 'connection'].includes(k))) as Record<string, string>;
  const r = await fetch(upstream + req.url, { method: req.method, headers, ...(raw.length ? { body: raw } : {}) });
  const out = Buffer.from(await r.arrayBuffer());
  res.writeHead(r.status, Object.fromEntries([...r.headers].filter(([k]) => !['content-length', 'transfer-encoding', 'connection', 'content-encoding'].includes(k)))).end(out);
});

await Promise.all([new Promise<void>((r) => server.listen(0, '127.0.0.1', r)), new Promise<void>((r) => control.listen(0, '127.0.0.1', r))]);
process.stdout.write(JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, control: `http://127.0.0.1:${(control.address() as AddressInfo).port}` }) + '\n');
const stop = () => {
  server.closeAllConnections();
  control.closeAllConnections();
  server.close();
  control.close(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.stdin.on('end', stop);
process.stdin.resume();
