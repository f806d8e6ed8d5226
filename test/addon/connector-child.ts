/**
 * The real connector in its own process for the add-on tests: the vm code blocks the test's
 * thread in Atomics.wait during UrlFetch calls, so the server must not share it. Prints one JSON
 * line {url, keys, google?}; stops on SIGTERM or when stdin closes.
 * argv[2]: JSON {extraction?: boolean, extractionHost?: string, env?: {...}, google?: boolean, slowRegistry?: boolean, operatorRegistry?: boolean, keys: {name: {mode, credits?, scopes?}}}
 * With `operatorRegistry`, the store gets the registry extract of test/helpers/operator-registry.ts
 * (real rows a live key sees, such as OPERATOR_UK_MOTOR), as an operator's registry:import would.
 *
 * A control server always runs beside the connector (its URL is `control` in the JSON line):
 * - POST /advance?ms=N moves this process's Date.now forward by N ms, and the connector's clock with it, so a
 *   test can "wait" out a 429's retry_after (the per-key limiter counts in real minutes) without sleeping for
 *   a minute, or bring a watch's next run and its policies' end dates closer;
 * - /slow never answers: with `slowRegistry`, the UK upstream registry points there, so each
 *   unknown UK policy waits COVERCHECK_REGISTRY_TIMEOUT_MS (batches slow enough to watch progress);
 * - PUT /canned?method=&path=&status= (body: the answer) makes /canned<path> answer that to that
 *   method: a connector that breaks the contract, for the add-on to refuse (point it at /canned).
 *
 * With `google`, the Sheets API stand-in (test/helpers/fake-google.ts) runs in this process too
 * (the test's thread is blocked during UrlFetch calls, when the connector writes into sheets), the
 * connector is given its service-account key, and a small control server lets the test put and
 * read grids: PUT /sheet?id=&title= (body: the grid as JSON), GET /grid?id=&title=; keep a
 * spreadsheet from the service account or share it again: PUT /share?id=&shared=false|true; and
 * change developer metadata as an editor does through the add-on (harness.ts's metadataMirror
 * forwards what the add-on does on its Spreadsheet stand-in):
 * - POST /metadata?id= (Spreadsheet.addDeveloperMetadata; body {key, value, visibility}) answers
 *   200 with the DeveloperMetadata resource, 400 with {error} when the stand-in refuses it; the
 *   entry is the add-on's Apps Script project's, so PROJECT-visible entries stay hidden from the connector;
 * - DELETE /metadata?id=&key=&value= (DeveloperMetadata.remove) removes the entries with that key
 *   and value: 204, or 404 when there is none (the two stand-ins disagree: a test bug);
 * - GET /metadata?id= lists the spreadsheet's entries, whoever may see them.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { FakeGoogle, type MetadataVisibility } from '../helpers/fake-google.js';
import { importDemoNumbersAsReal, importOperatorRegistry } from '../helpers/operator-registry.js';
import { startTestServer } from '../helpers/server.js';
import type { TScope } from '../../shared/account.js';

const spec = JSON.parse(process.argv[2] ?? '{}') as {
  extraction?: boolean;
  extractionHost?: string;
  env?: Record<string, string>;
  google?: boolean;
  slowRegistry?: boolean;
  operatorRegistry?: boolean;
  keys?: Record<string, { mode?: 'live' | 'test'; credits?: number; scopes?: TScope[] }>;
};

let google: FakeGoogle | null = null;
let googleInfo: { control: string; serviceEmail: string } | undefined;
const env: Record<string, string> = { ...spec.env };
let skew = 0;
const canned = new Map<string, { status: number; body: string }>();
const realNow = Date.now.bind(Date);
Date.now = () => realNow() + skew;

const control = http.createServer((req, res) => {
  const u = new URL(req.url!, 'http://x');
  const id = u.searchParams.get('id') ?? '';
  const title = u.searchParams.get('title') ?? '';
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    // The registry adapter asks {base}/policies/...: everything under /slow never answers.
    if (u.pathname === '/slow' || u.pathname.startsWith('/slow/')) return;
    if (req.method === 'POST' && u.pathname === '/advance') {
      skew += Number(u.searchParams.get('ms') ?? 0);
      return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ skew }));
    }
    if (req.method === 'PUT' && u.pathname === '/canned') {
      canned.set(`${u.searchParams.get('method')} ${u.searchParams.get('path')}`, {
        status: Number(u.searchParams.get('status') ?? 200),
        body: Buffer.concat(chunks).toString('utf8'),
      });
      return res.writeHead(204).end();
    }
    if (u.pathname.startsWith('/canned/')) {
      const c = canned.get(`${req.method} ${u.pathname.slice('/canned'.length)}`);
      return c ? res.writeHead(c.status, { 'content-type': 'application/json' }).end(c.body) : res.writeHead(404).end();
    }
    const g = google;
    if (g) {
      if (req.method === 'PUT' && u.pathname === '/sheet') {
        g.sheet(id, title, JSON.parse(Buffer.concat(chunks).toString('utf8') || '[]'));
        return res.writeHead(204).end();
      }
      if (req.method === 'GET' && u.pathname === '/grid') {
        const grid = g.spreadsheets.get(id)?.get(title);
        if (!grid) return res.writeHead(404).end();
        return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(grid));
      }
      if (req.method === 'GET' && u.pathname === '/calls')
        return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(g.calls));
      if (req.method === 'PUT' && u.pathname === '/share') {
        g.share(id, u.searchParams.get('shared') !== 'false');
        return res.writeHead(204).end();
      }
      if (req.method === 'GET' && u.pathname === '/metadata')
        return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(g.developerMetadata(id)));
      if (req.method === 'DELETE' && u.pathname === '/metadata') {
        const key = u.searchParams.get('key');
        const value = u.searchParams.get('value');
        const gone = g.developerMetadata(id).filter((m) => m.metadataKey === key && (m.metadataValue ?? '') === (value ?? ''));
        for (const m of gone) g.removeDeveloperMetadata(id, m.metadataId);
        return res.writeHead(gone.length ? 204 : 404).end();
      }
      if (req.method === 'POST' && u.pathname === '/metadata') {
        try {
          const m = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as {
            key: string;
            value?: string;
            visibility: MetadataVisibility;
          };
          const entry = g.addDeveloperMetadata(id, {
            key: m.key,
            ...(m.value !== undefined ? { value: m.value } : {}),
            visibility: m.visibility,
          });
          return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(entry));
        } catch (err) {
          return res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: (err as Error).message }));
        }
      }
    }
    res.writeHead(404).end();
  });
});
await new Promise<void>((r) => control.listen(0, '127.0.0.1', r));
const controlUrl = `http://127.0.0.1:${(control.address() as AddressInfo).port}`;
if (spec.slowRegistry) env.COVERCHECK_REGISTRY_UPSTREAMS = `UK=${controlUrl}/slow`;
if (spec.google) {
  google = new FakeGoogle();
  await google.start();
  Object.assign(env, {
    GOOGLE_APPLICATION_CREDENTIALS: google.keyFile,
    COVERCHECK_SHEETS_ROOT_URL: `${google.url}/`,
    COVERCHECK_SHEETS_PER_MIN: '6000',
    COVERCHECK_SHEETS_PER_SPREADSHEET_PER_MIN: '6000',
    ...spec.env,
  });
  googleInfo = { control: controlUrl, serviceEmail: google.serviceEmail };
}

const srv = await startTestServer({
  // The connector's clock is Date.now, so /advance moves what it sees as today (new Date() would not follow).
  now: () => new Date(Date.now()),
  extraction: !!spec.extraction,
  ...(spec.extractionHost ? { extractionHost: spec.extractionHost } : {}),
  ...(Object.keys(env).length ? { env } : {}),
});
// A deployed connector whose operator imported a registry extract: live keys see real sources only, so
// the demo numbers are real rows here too, and the add-on's flows get the same verdicts on a live key
// (charged) as on a sandbox key (demo rows).
await importDemoNumbersAsReal(srv.store);
if (spec.operatorRegistry) await importOperatorRegistry(srv.store);
const keys: Record<string, string> = {};
for (const [name, k] of Object.entries(spec.keys ?? {})) keys[name] = (await srv.key({ ...k, name })).key;
process.stdout.write(JSON.stringify({ url: srv.url, keys, control: controlUrl, ...(googleInfo ? { google: googleInfo } : {}) }) + '\n');
let closing = false;
const stop = async () => {
  if (closing) return;
  closing = true;
  await srv.close();
  control.closeAllConnections();
  await new Promise((r) => control.close(r));
  await google?.stop();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.stdin.on('end', stop);
process.stdin.resume();
