/**
 * The real connector app for portal tests, like test/helpers/server.ts but with a movable clock, a
 * logger whose every line is kept (to prove keys never reach it), and a fixed port, so the
 * activation links it mails point at it. Plus a tiny form client (cookie + CSRF field) for fetch.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { loadConfig } from '../../connector/src/config.js';
import type { AppContext } from '../../connector/src/context.js';
import { createLogger } from '../../connector/src/logger.js';
import { startConnector, type Connector } from '../../connector/src/start.js';
import type { Store } from '../../connector/src/store/types.js';

export interface PortalServer {
  url: string;
  connector: Connector;
  ctx: AppContext;
  store: Store;
  /** Every log line written so far, raw JSON text. */
  logs: string[];
  outbox: string;
  /** Moves the app's clock forward. */
  advance(ms: number): void;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

export async function startPortalServer(env: Record<string, string> = {}): Promise<PortalServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'covercheck-portal-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const config = loadConfig({
    COVERCHECK_DB: path.join(dir, 'covercheck.db'),
    HOST: '127.0.0.1',
    PORT: String(port),
    COVERCHECK_PUBLIC_URL: url,
    COVERCHECK_MAIL_OUTBOX: path.join(dir, 'outbox'),
    COVERCHECK_WORKERS: '0',
    COVERCHECK_RATE_LIMIT_IP_PER_MIN: '100000',
    COVERCHECK_PORTAL_PER_IP_PER_HOUR: '1000',
    COVERCHECK_PORTAL_PER_ADDRESS_PER_DAY: '1000',
    ...env,
  });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      logs.push(String(chunk));
      cb();
    },
  });
  let offset = 0;
  // No reference data: the portal reads none, and the suite starts faster.
  const connector = await startConnector({
    config,
    logger: createLogger('trace', sink),
    now: () => new Date(Date.now() + offset),
    seed: false,
    extractionThreads: 0,
  });
  connector.startWorkers();
  const server = await connector.listen(port, '127.0.0.1');
  return {
    url,
    connector,
    ctx: connector.ctx,
    store: connector.store,
    logs,
    outbox: config.portal.outbox,
    advance(ms) {
      offset += ms;
    },
    async close() {
      server.closeAllConnections();
      await connector.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A browser-like form client: the portal's cookie and the CSRF field of the last page. */
export class FormClient {
  cookie = '';
  csrf = '';
  constructor(private readonly base: string) {}

  async get(p: string): Promise<{ status: number; html: string; headers: Headers }> {
    const res = await fetch(this.base + p, { headers: this.cookie ? { cookie: this.cookie } : {} });
    return this.take(res);
  }

  async post(p: string, fields: Record<string, string>, opts: { csrf?: string | null; cookie?: string | null } = {}) {
    const body = new URLSearchParams(fields);
    const csrf = opts.csrf === undefined ? this.csrf : opts.csrf;
    if (csrf !== null) body.set('csrf', csrf);
    const cookie = opts.cookie === undefined ? this.cookie : opts.cookie;
    const res = await fetch(this.base + p, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}) },
      body,
      redirect: 'manual',
    });
    return this.take(res);
  }

  private async take(res: Response) {
    const set = res.headers.get('set-cookie');
    if (set) this.cookie = set.split(';')[0]!;
    const html = await res.text();
    const m = /name="csrf" value="([^"]+)"/.exec(html);
    if (m) this.csrf = m[1]!;
    return { status: res.status, html, headers: res.headers };
  }
}

/** The key shown on a key page, if any. */
export function shownKey(html: string): string | null {
  return /id="api-key">(pk_(?:live|test)_[A-Za-z0-9]{44})</.exec(html)?.[1] ?? null;
}

/** Decodes a quoted-printable mail body (soft line breaks and =XX escapes). */
export function decodeQuotedPrintable(s: string): string {
  return s.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));
}

export function activationLink(mail: string): string | null {
  // Decode only a message that says it is quoted-printable: decoding plain text would turn a token
  // that starts with two hex digits ("token=3F...") into something else.
  const text = /Content-Transfer-Encoding:\s*quoted-printable/i.test(mail) ? decodeQuotedPrintable(mail) : mail;
  return /https?:\/\/\S+\/portal\/activate\?token=[A-Za-z0-9_-]{43}/.exec(text)?.[0] ?? null;
}
