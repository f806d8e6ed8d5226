/**
 * The connector behind Caddy as deploy/ ships them. Caddy terminates HTTPS with its internal CA (standing
 * in for a public one: the same server, certificates from a local authority instead of ACME) and forwards
 * to the built connector on loopback, started with deploy/covercheck.env. Clients bind 127.0.0.2 and
 * 127.0.0.3, standing for two machines on the internet; Caddy reaches the connector from 127.0.0.1.
 * A second connector without COVERCHECK_TRUST_PROXY shows what the setting changes.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBuiltConnector, stopBuiltConnector, type BuiltConnector } from '../helpers/built-connector.js';
import { parseEnvFile, readDeployFile } from './deploy-files.js';

const run = promisify(execFile);
const CADDY = '/usr/bin/caddy';
const SHIPPED = readDeployFile('deploy/Caddyfile');
const SITE = 'covercheck.example.com';
const UPSTREAM = /^(\s*reverse_proxy) 127\.0\.0\.1:\d+$/m;
/** Requests a client address may make a minute (COVERCHECK_RATE_LIMIT_IP_PER_MIN): few, so a test spends them. */
const PER_IP = 3;

/**
 * The shipped Caddyfile for this machine: the site on `localhost:<port>` with a certificate from Caddy's
 * internal CA, forwarding to `upstream`; what is global (admin API, ports, trust store) set for a test.
 */
function testCaddyfile(sites: { port: number; upstream: number }[], httpPort: number): string {
  expect(SHIPPED.match(new RegExp(`^${SITE.replace(/\./g, '\\.')} \\{$`, 'gm')), 'one site block for the public name').toHaveLength(1);
  expect(SHIPPED).toMatch(UPSTREAM);
  const global = `{\n\tadmin off\n\tlocal_certs\n\tskip_install_trust\n\tdefault_bind 127.0.0.1\n\thttp_port ${httpPort}\n\tauto_https disable_redirects\n}\n`;
  const blocks = sites.map(({ port, upstream }) =>
    SHIPPED.replace(`${SITE} {`, `localhost:${port} {`).replace(UPSTREAM, `$1 127.0.0.1:${upstream}`),
  );
  return [global, ...blocks].join('\n');
}

async function freePort(): Promise<number> {
  const server = net.createServer().listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

interface Reply {
  status: number;
  body: string;
}

/** One HTTPS request to Caddy from the client address `from`, trusting `ca` only (no agent: each request its own connection). */
function get(port: number, urlPath: string, opts: { from: string; ca?: Buffer; headers?: Record<string, string> }): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: '127.0.0.1',
        servername: 'localhost',
        port,
        path: urlPath,
        localAddress: opts.from,
        agent: false,
        headers: { host: `localhost:${port}`, ...opts.headers },
        ...(opts.ca ? { ca: opts.ca } : {}),
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      },
    );
    req.on('error', reject);
    req.setTimeout(10_000, () => req.destroy(new Error(`no answer from Caddy for ${urlPath}`)));
    req.end();
  });
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'covercheck-caddy-'));
let caddy: ChildProcess | undefined;
let caddyLog = '';
let root: Buffer;
/** The connector as deploy/covercheck.env sets it up, and one with COVERCHECK_TRUST_PROXY off. */
const behind = {
  trusting: { port: 0 } as { port: number; connector?: BuiltConnector; log: string[] },
  notTrusting: { port: 0 } as { port: number; connector?: BuiltConnector; log: string[] },
};

/** The connector's request log lines (JSON, one a line), as it writes them to stdout. */
function collectLog(c: BuiltConnector, into: string[]): void {
  let partial = '';
  c.proc.stdout!.on('data', (d: Buffer) => {
    const lines = (partial + d.toString()).split('\n');
    partial = lines.pop()!;
    into.push(...lines.filter((l) => l.startsWith('{')));
  });
}

function requestLog(lines: string[], url: string): { ip: string; status: number }[] {
  return lines
    .map((l) => JSON.parse(l) as { msg?: string; url?: string; ip: string; status: number })
    .filter((l) => l.msg === 'request completed' && l.url === url);
}

beforeAll(async () => {
  const deployEnv = parseEnvFile(readDeployFile('deploy/covercheck.env'));
  // The state paths name the server's folders; the helper gives each connector a temporary one instead.
  const { COVERCHECK_DB: _db, COVERCHECK_MAIL_OUTBOX: _outbox, PORT: _port, ...settings } = deployEnv;
  const env = { ...settings, COVERCHECK_LOG_LEVEL: 'info', COVERCHECK_RATE_LIMIT_IP_PER_MIN: String(PER_IP) };
  const [trusting, notTrusting] = await Promise.all([
    startBuiltConnector({ env }),
    startBuiltConnector({ env: { ...env, COVERCHECK_TRUST_PROXY: 'false' } }),
  ]);
  behind.trusting = { port: await freePort(), connector: trusting, log: [] };
  behind.notTrusting = { port: await freePort(), connector: notTrusting, log: [] };
  collectLog(trusting, behind.trusting.log);
  collectLog(notTrusting, behind.notTrusting.log);

  const caddyfile = path.join(work, 'Caddyfile');
  fs.writeFileSync(
    caddyfile,
    testCaddyfile(
      [
        { port: behind.trusting.port, upstream: trusting.port },
        { port: behind.notTrusting.port, upstream: notTrusting.port },
      ],
      await freePort(),
    ),
  );
  // Caddy keeps its CA, certificates and autosaved config under these, here the test's folder.
  const home = {
    HOME: work,
    XDG_DATA_HOME: path.join(work, 'data'),
    XDG_CONFIG_HOME: path.join(work, 'config'),
    PATH: process.env.PATH ?? '/usr/bin:/bin',
  };
  caddy = spawn(CADDY, ['run', '--adapter', 'caddyfile', '--config', caddyfile], { env: home, stdio: ['ignore', 'pipe', 'pipe'] });
  caddy.stdout!.on('data', (d: Buffer) => (caddyLog += d.toString()));
  caddy.stderr!.on('data', (d: Buffer) => (caddyLog += d.toString()));
  const rootFile = path.join(work, 'data/caddy/pki/authorities/local/root.crt');
  for (let i = 0; ; i++) {
    if (caddy.exitCode !== null) throw new Error(`caddy exited ${caddy.exitCode}:\n${caddyLog}`);
    if (fs.existsSync(rootFile)) {
      root = fs.readFileSync(rootFile);
      const ready = await get(behind.trusting.port, '/healthz', { from: '127.0.0.2', ca: root }).catch(() => null);
      if (ready?.status === 200) break;
    }
    if (i > 200) throw new Error(`caddy not serving after 20 s:\n${caddyLog}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}, 90_000);

afterAll(async () => {
  if (caddy && caddy.exitCode === null) {
    const exited = new Promise((r) => caddy!.once('exit', r));
    caddy.kill('SIGTERM');
    await exited;
  }
  await Promise.all([behind.trusting, behind.notTrusting].map((b) => b.connector && stopBuiltConnector(b.connector, { removeDir: true })));
  fs.rmSync(work, { recursive: true, force: true });
});

describe('deploy/Caddyfile', () => {
  it('is a valid Caddy configuration, as written, and formatted as caddy fmt writes it', async () => {
    const env = {
      HOME: work,
      XDG_DATA_HOME: path.join(work, 'validate'),
      XDG_CONFIG_HOME: path.join(work, 'validate'),
      PATH: process.env.PATH ?? '',
    };
    const shipped = path.join(import.meta.dirname, '../../deploy/Caddyfile');
    await run(CADDY, ['validate', '--adapter', 'caddyfile', '--config', shipped], { env });
    expect((await run(CADDY, ['fmt', shipped], { env })).stdout).toBe(SHIPPED);
    // The check can fail: a misspelt directive is refused.
    const broken = path.join(work, 'Caddyfile.broken');
    fs.writeFileSync(broken, SHIPPED.replace('reverse_proxy', 'reverse_proxi'));
    await expect(run(CADDY, ['validate', '--adapter', 'caddyfile', '--config', broken], { env })).rejects.toThrow(/reverse_proxi/);
  });
});

describe('the connector behind Caddy (HTTPS)', () => {
  it("serves over HTTPS with Caddy's certificate, which a client that does not trust the CA refuses", async () => {
    const health = await get(behind.trusting.port, '/healthz', { from: '127.0.0.2', ca: root });
    expect(health.status).toBe(200);
    await expect(get(behind.trusting.port, '/healthz', { from: '127.0.0.2' })).rejects.toThrow(/self[- ]signed|unable to (get|verify)/i);
  });

  it("per-IP limits count each client's address: one client spending its budget leaves the other's, and a forged X-Forwarded-For buys nothing", async () => {
    const { port } = behind.trusting;
    const first: number[] = [];
    for (let i = 0; i <= PER_IP; i++) first.push((await get(port, '/api/v1/datasets', { from: '127.0.0.2', ca: root })).status);
    expect(first).toEqual([...Array<number>(PER_IP).fill(200), 429]);
    // Caddy replaces a client's X-Forwarded-For with the address it sees, so a forged one is no fresh budget.
    expect(
      (await get(port, '/api/v1/datasets', { from: '127.0.0.2', ca: root, headers: { 'x-forwarded-for': '203.0.113.9' } })).status,
    ).toBe(429);
    expect((await get(port, '/api/v1/datasets', { from: '127.0.0.3', ca: root })).status).toBe(200);
  });

  it('without COVERCHECK_TRUST_PROXY every client spends the one budget of the proxy', async () => {
    const { port } = behind.notTrusting;
    const first: number[] = [];
    for (let i = 0; i <= PER_IP; i++) first.push((await get(port, '/api/v1/datasets', { from: '127.0.0.2', ca: root })).status);
    expect(first).toEqual([...Array<number>(PER_IP).fill(200), 429]);
    expect((await get(port, '/api/v1/datasets', { from: '127.0.0.3', ca: root })).status).toBe(429);
  });

  it("the request log records the client's address, not the proxy's", async () => {
    await new Promise((r) => setTimeout(r, 200));
    const trusted = requestLog(behind.trusting.log, '/api/v1/datasets');
    expect(trusted.length).toBe(PER_IP + 3);
    expect(new Set(trusted.map((l) => l.ip))).toEqual(new Set(['127.0.0.2', '127.0.0.3']));
    expect(trusted.filter((l) => l.ip === '127.0.0.3').map((l) => l.status)).toEqual([200]);
    // Without the setting, the log knows only the proxy.
    expect(new Set(requestLog(behind.notTrusting.log, '/api/v1/datasets').map((l) => l.ip))).toEqual(new Set(['127.0.0.1']));
  });

  it('/metrics is not reachable through the proxy, only on the machine itself (COVERCHECK_METRICS=loopback)', async () => {
    expect((await get(behind.trusting.port, '/metrics', { from: '127.0.0.2', ca: root })).status).toBe(404);
    const direct = await fetch(`${behind.trusting.connector!.url}/metrics`);
    expect(direct.status).toBe(200);
  });
});
