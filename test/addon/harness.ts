/**
 * Runs the built add-on (dist/addon/Code.js) in a node:vm context with in-memory stand-ins for
 * Apps Script's services, and a UrlFetchApp that makes real, synchronous HTTP calls (a worker
 * thread does the fetch; this thread blocks in Atomics.wait until it answers).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import vm from 'node:vm';
import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads';

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const DIST = path.join(ROOT, 'dist/addon');

type V = any;

// ---------------------------------------------------------------- synchronous HTTP

interface RawReq {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: Uint8Array | string;
}
interface RawRes {
  status?: number;
  headers?: Record<string, string>;
  body?: Uint8Array;
  error?: string;
  ms: number;
}

export class SyncHttp {
  private worker = new Worker(path.join(import.meta.dirname, 'http-worker.mjs'));
  constructor() {
    this.worker.unref();
  }
  send(requests: RawReq[]): RawRes[] {
    const flag = new SharedArrayBuffer(4);
    const { port1, port2 } = new MessageChannel();
    this.worker.postMessage({ requests, flag, port: port2 }, [port2]);
    const r = Atomics.wait(new Int32Array(flag), 0, 0, 120_000);
    if (r === 'timed-out') throw new Error('HTTP worker did not answer within 120 s');
    const msg = receiveMessageOnPort(port1);
    port1.close();
    return msg!.message as RawRes[];
  }
  async close(): Promise<void> {
    await this.worker.terminate();
  }
}

function blockingSleep(ms: number): void {
  if (ms > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

// ---------------------------------------------------------------- the connector in a child process

export interface ChildConnector {
  url: string;
  keys: Record<string, string>;
  /** With `google: true`: the Sheets API stand-in's control server (see connector-child.ts) and service account. */
  google?: { control: string; serviceEmail: string };
  /** The child's control server (see connector-child.ts): POST /advance?ms=N moves its clock. */
  control: string;
  stop(): Promise<void>;
}

export async function startConnectorChild(spec: { extraction?: boolean; env?: Record<string, string>; google?: boolean; slowRegistry?: boolean; keys: Record<string, { mode?: 'live' | 'test'; credits?: number; scopes?: string[] }> }): Promise<ChildConnector> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'connector-child.ts'), JSON.stringify(spec)], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    const rl = readline.createInterface({ input: child.stdout! });
    rl.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`connector child exited with ${code}`)));
  });
  const info = JSON.parse(line) as { url: string; keys: Record<string, string>; control: string; google?: { control: string; serviceEmail: string } };
  return {
    ...info,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

// ---------------------------------------------------------------- A1 notation and the grid

export function colToNum(letters: string): number {
  return letters.toUpperCase().split('').reduce((n, c) => n * 26 + (c.charCodeAt(0) - 64), 0);
}
export function numToCol(n: number): string {
  let s = '';
  while (n > 0) {
    const m = (n - 1) % 26;
    s = String.fromCharCode(65 + m) + s;
    n = Math.floor((n - 1) / 26);
  }
  return s;
}

export class FakeSheet {
  cells: V[][] = [];
  charts: V[] = [];
  constructor(
    public name: string,
    readonly parent: FakeSpreadsheet,
  ) {}
  getName() {
    return this.name;
  }
  getParent() {
    return this.parent;
  }
  getLastRow() {
    for (let r = this.cells.length; r >= 1; r--) if ((this.cells[r - 1] ?? []).some((v) => v !== '' && v !== undefined && v !== null)) return r;
    return 0;
  }
  getLastColumn() {
    let max = 0;
    for (const row of this.cells) for (let c = row.length; c >= 1; c--) if (row[c - 1] !== '' && row[c - 1] !== undefined && row[c - 1] !== null) { max = Math.max(max, c); break; }
    return max;
  }
  get(r: number, c: number): V {
    return this.cells[r - 1]?.[c - 1] ?? '';
  }
  set(r: number, c: number, v: V) {
    while (this.cells.length < r) this.cells.push([]);
    const row = this.cells[r - 1]!;
    while (row.length < c) row.push('');
    row[c - 1] = v;
  }
  getRange(a: number | string, col?: number, nr = 1, nc = 1): FakeRange {
    if (typeof a === 'string') {
      const m = /^([A-Z]+)(\d+)(?::([A-Z]+)(\d+))?$/i.exec(a.trim());
      if (!m) throw new Error(`Bad A1 notation: ${a}`);
      const r1 = Number(m[2]);
      const c1 = colToNum(m[1]!);
      const r2 = m[4] ? Number(m[4]) : r1;
      const c2 = m[3] ? colToNum(m[3]) : c1;
      return new FakeRange(this, r1, c1, r2 - r1 + 1, c2 - c1 + 1);
    }
    if (!(a >= 1) || !(col! >= 1) || !(nr >= 1) || !(nc >= 1)) throw new Error(`Bad range ${a},${col},${nr},${nc}`);
    return new FakeRange(this, a, col!, nr, nc);
  }
  getDataRange() {
    return new FakeRange(this, 1, 1, Math.max(1, this.getLastRow()), Math.max(1, this.getLastColumn()));
  }
  clearContents() {
    this.cells = [];
    return this;
  }
  clear() {
    return this.clearContents();
  }
  getCharts() {
    return [...this.charts];
  }
  insertChart(chart: V) {
    this.charts.push(chart);
  }
  removeChart(chart: V) {
    this.charts = this.charts.filter((c) => c !== chart);
  }
  newChart() {
    const spec: V = { type: null, ranges: [] as string[], position: null, options: {} as Record<string, V> };
    const b: V = {
      setChartType: (t: V) => ((spec.type = t), b),
      addRange: (r: FakeRange) => (spec.ranges.push(r.getA1Notation()), b),
      setPosition: (...p: number[]) => ((spec.position = p), b),
      setOption: (k: string, v: V) => ((spec.options[k] = v), b),
      build: () => ({ ...spec, getId: () => 'chart1' }),
    };
    return b;
  }
  /** Test helper: the values of a whole row as strings. */
  row(r: number): V[] {
    return [...(this.cells[r - 1] ?? [])];
  }
}

export class FakeRange {
  constructor(
    readonly sheet: FakeSheet,
    readonly row: number,
    readonly col: number,
    readonly nr: number,
    readonly nc: number,
  ) {}
  getSheet() {
    return this.sheet;
  }
  getRow() {
    return this.row;
  }
  getColumn() {
    return this.col;
  }
  getLastRow() {
    return this.row + this.nr - 1;
  }
  getLastColumn() {
    return this.col + this.nc - 1;
  }
  getNumRows() {
    return this.nr;
  }
  getNumColumns() {
    return this.nc;
  }
  getA1Notation() {
    const a = `${numToCol(this.col)}${this.row}`;
    return this.nr === 1 && this.nc === 1 ? a : `${a}:${numToCol(this.getLastColumn())}${this.getLastRow()}`;
  }
  getValues(): V[][] {
    return Array.from({ length: this.nr }, (_, i) => Array.from({ length: this.nc }, (_, j) => this.sheet.get(this.row + i, this.col + j)));
  }
  getValue() {
    return this.sheet.get(this.row, this.col);
  }
  setValues(values: V[][]) {
    // Apps Script refuses a mismatch between the data's and the range's dimensions.
    if (values.length !== this.nr || values.some((r) => r.length !== this.nc)) {
      throw new Error(`The number of rows or columns in the data does not match the range: data ${values.length}x${values[0]?.length}, range ${this.nr}x${this.nc}`);
    }
    values.forEach((r, i) => r.forEach((v, j) => this.sheet.set(this.row + i, this.col + j, v)));
    this.sheet.parent.writes++;
    return this;
  }
  setValue(v: V) {
    return this.setValues([[v]]);
  }
}

export class FakeSpreadsheet {
  sheets: FakeSheet[] = [];
  active: FakeSheet;
  activeRange: FakeRange | null = null;
  toasts: string[] = [];
  writes = 0;
  constructor(readonly id = 'spreadsheet-1') {
    this.active = new FakeSheet('Sheet1', this);
    this.sheets.push(this.active);
  }
  getId() {
    return this.id;
  }
  getActiveSheet() {
    return this.active;
  }
  setActiveSheet(s: FakeSheet) {
    this.active = s;
    return s;
  }
  getActiveRange() {
    return this.activeRange;
  }
  getSheetByName(n: string) {
    return this.sheets.find((s) => s.name === n) ?? null;
  }
  getSheets() {
    return [...this.sheets];
  }
  insertSheet(n: string) {
    if (this.getSheetByName(n)) throw new Error(`A sheet with the name "${n}" already exists.`);
    const s = new FakeSheet(n, this);
    this.sheets.push(s);
    return s;
  }
  toast(msg: string) {
    this.toasts.push(msg);
  }
}

// ---------------------------------------------------------------- services

class FakeProperties {
  data: Record<string, string> = {};
  getProperty(k: string) {
    return k in this.data ? this.data[k]! : null;
  }
  setProperty(k: string, v: string) {
    this.data[k] = String(v);
    return this;
  }
  setProperties(o: Record<string, string>) {
    for (const [k, v] of Object.entries(o)) this.data[k] = String(v);
    return this;
  }
  deleteProperty(k: string) {
    delete this.data[k];
    return this;
  }
  getProperties() {
    return { ...this.data };
  }
}

/** CacheService's documented limits: key <= 250 chars, value <= 100 KB, TTL <= 6 h; 1000 keys per bulk call (assumed). */
export class FakeCache {
  entries = new Map<string, { v: string; until: number }>();
  stats = { puts: 0, gets: 0 };
  constructor(private now: () => number) {}
  private check(k: string, v?: string, ttl?: number) {
    if (k.length > 250) throw new Error(`Cache key longer than 250 characters: ${k.length}`);
    if (v !== undefined && Buffer.byteLength(v) > 100 * 1024) throw new Error('Argument too large: value');
    if (ttl !== undefined && (ttl < 1 || ttl > 21600)) throw new Error(`Bad expiration ${ttl}`);
  }
  put(k: string, v: string, ttl = 600) {
    this.check(k, v, ttl);
    this.stats.puts++;
    this.entries.set(k, { v, until: this.now() + ttl * 1000 });
  }
  get(k: string) {
    this.stats.gets++;
    const e = this.entries.get(k);
    return e && e.until > this.now() ? e.v : null;
  }
  putAll(o: Record<string, string>, ttl = 600) {
    const ks = Object.keys(o);
    if (ks.length > 1000) throw new Error('putAll: more than 1000 keys');
    for (const k of ks) this.put(k, o[k]!, ttl);
  }
  getAll(ks: string[]) {
    if (ks.length > 1000) throw new Error('getAll: more than 1000 keys');
    const out: Record<string, string> = {};
    for (const k of ks) {
      const v = this.get(k);
      if (v !== null) out[k] = v;
    }
    return out;
  }
  remove(k: string) {
    this.entries.delete(k);
  }
}

class FakeBlob {
  constructor(
    private bytes: Uint8Array,
    private type: string,
    private name: string,
  ) {}
  getBytes() {
    return Array.from(this.bytes, (b) => (b > 127 ? b - 256 : b));
  }
  raw() {
    return this.bytes;
  }
  getContentType() {
    return this.type;
  }
  getName() {
    return this.name;
  }
  setName(n: string) {
    this.name = n;
    return this;
  }
  getDataAsString() {
    return Buffer.from(this.bytes).toString('utf8');
  }
}

function toBuf(x: V): Buffer {
  if (typeof x === 'string') return Buffer.from(x, 'utf8');
  return Buffer.from(Uint8Array.from(x as number[], (b) => b & 0xff));
}

export interface HarnessOptions {
  /** Map of Drive file ids to fixture files. */
  drive?: Record<string, string>;
  /** 'real' sleeps block; the bench records the requested time as well either way. */
  user?: string;
  /** Replaces the blocking Utilities.sleep (the time asked for is still added to stats.sleptMs and stats.sleeps). */
  sleep?: (ms: number) => void;
  /** SpreadsheetApp.getActive().getId() (default spreadsheet-1). */
  spreadsheetId?: string;
}

/** The add-on's top-level functions (as listed in addon/src/main.ts). */
export const ENTRY_POINTS = [
  'VERIFYPOLICY', 'onOpen', 'onInstall', 'showVerifySidebar', 'showPdfSidebar', 'showDatasetSidebar', 'showSettings', 'getSettings', 'saveSettings',
  'clearKey', 'testConnection', 'grantKeyToSpreadsheet', 'revokeGrant', 'detectRowMapping', 'startRowsRun', 'pollRowsRun', 'submitPdfExtraction',
  'pollPdfExtraction', 'searchDatasets', 'previewDataset', 'importDataset', 'listSchedules', 'removeSchedule', 'refreshScheduledImports',
  'getSheetsInfo', 'listConnectorSchedules', 'createConnectorSchedule', 'removeConnectorSchedule',
] as const;
export type EntryPoint = (typeof ENTRY_POINTS)[number];

export interface Harness {
  fns: Record<EntryPoint, (...a: V[]) => V>;
  ss: FakeSpreadsheet;
  userProps: FakeProperties;
  docProps: FakeProperties;
  docCache: FakeCache;
  userCache: FakeCache;
  triggers: V[];
  ui: { menus: V[]; sidebars: V[]; dialogs: V[] };
  stats: { requests: number; roundTrips: number; sleptMs: number; sleeps: number[]; log: { method: string; url: string; status: number | string }[] };
  /** Moves the cache clock (to test lifetimes). */
  advance(ms: number): void;
  /** Blocks fetches to simulate an unreachable host. */
  offline: boolean;
}

/** A fresh vm context around the built bundle; each harness is one user in one spreadsheet. */
export function loadAddon(http: SyncHttp, opts: HarnessOptions = {}): Harness {
  let skew = 0;
  const now = () => Date.now() + skew;
  const ss = new FakeSpreadsheet(opts.spreadsheetId);
  const userProps = new FakeProperties();
  const docProps = new FakeProperties();
  const scriptProps = new FakeProperties();
  const docCache = new FakeCache(now);
  const userCache = new FakeCache(now);
  const scriptCache = new FakeCache(now);
  const triggers: V[] = [];
  const ui = { menus: [] as V[], sidebars: [] as V[], dialogs: [] as V[] };
  const stats = { requests: 0, roundTrips: 0, sleptMs: 0, sleeps: [] as number[], log: [] as { method: string; url: string; status: number | string }[] };
  const h: Partial<Harness> = { offline: false };

  const toRaw = (url: string, p: V = {}): RawReq => {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(p.headers ?? {})) headers[k] = String(v);
    let body: Uint8Array | string | undefined;
    if (typeof p.payload === 'string') {
      body = p.payload;
      headers['content-type'] = p.contentType ?? 'application/x-www-form-urlencoded';
    } else if (p.payload && typeof p.payload === 'object') {
      // An object payload with a Blob goes out as multipart/form-data, as UrlFetchApp does.
      const boundary = `----gas${crypto.randomBytes(8).toString('hex')}`;
      const parts: Buffer[] = [];
      for (const [k, v] of Object.entries(p.payload as Record<string, V>)) {
        if (v instanceof FakeBlob) {
          parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"; filename="${v.getName()}"\r\nContent-Type: ${v.getContentType()}\r\n\r\n`));
          parts.push(Buffer.from(v.raw()));
          parts.push(Buffer.from('\r\n'));
        } else parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${String(v)}\r\n`));
      }
      parts.push(Buffer.from(`--${boundary}--\r\n`));
      body = new Uint8Array(Buffer.concat(parts));
      headers['content-type'] = `multipart/form-data; boundary=${boundary}`;
    }
    return { url, method: String(p.method ?? 'get').toUpperCase(), headers, ...(body !== undefined ? { body } : {}) };
  };
  const response = (r: RawRes, url: string) => {
    if (r.error) throw new Error(`Exception: Address unavailable: ${url} (${r.error})`);
    const text = Buffer.from(r.body!).toString('utf8');
    return {
      getResponseCode: () => r.status,
      getContentText: () => text,
      getHeaders: () => ({ ...r.headers }),
      getBlob: () => new FakeBlob(r.body!, r.headers!['content-type'] ?? '', ''),
    };
  };
  const doFetch = (reqs: RawReq[]) => {
    stats.roundTrips++;
    stats.requests += reqs.length;
    if (h.offline) {
      for (const r of reqs) stats.log.push({ method: r.method, url: r.url, status: 'offline' });
      throw new Error(`Exception: Address unavailable: ${reqs[0]!.url}`);
    }
    const res = http.send(reqs);
    res.forEach((r, i) => stats.log.push({ method: reqs[i]!.method, url: reqs[i]!.url, status: r.status ?? r.error ?? '?' }));
    return res.map((r, i) => response(r, reqs[i]!.url));
  };

  const driveFiles = opts.drive ?? {};
  const globals: Record<string, V> = {
    console,
    SpreadsheetApp: {
      getActiveSpreadsheet: () => ss,
      getActive: () => ss,
      getActiveSheet: () => ss.getActiveSheet(),
      getActiveRange: () => ss.getActiveRange(),
      getUi: () => ({
        createAddonMenu: () => {
          const menu = { items: [] as V[] };
          const m: V = {
            addItem: (label: string, fn: string) => (menu.items.push({ label, fn }), m),
            addSeparator: () => (menu.items.push('---'), m),
            addToUi: () => ui.menus.push(menu),
          };
          return m;
        },
        showSidebar: (out: V) => ui.sidebars.push(out),
        showModalDialog: (out: V, title: string) => ui.dialogs.push({ out, title }),
      }),
    },
    PropertiesService: { getUserProperties: () => userProps, getDocumentProperties: () => docProps, getScriptProperties: () => scriptProps },
    CacheService: { getDocumentCache: () => docCache, getUserCache: () => userCache, getScriptCache: () => scriptCache },
    ScriptApp: {
      newTrigger: (fn: string) => {
        const t: V = { fn, kind: 'time', every: null };
        const b: V = {
          timeBased: () => b,
          everyHours: (n: number) => ((t.every = { hours: n }), b),
          everyDays: (n: number) => ((t.every = { days: n }), b),
          everyWeeks: (n: number) => ((t.every = { weeks: n }), b),
          create: () => {
            const trig = { ...t, id: `trigger-${triggers.length + 1}-${crypto.randomBytes(3).toString('hex')}`, getUniqueId: () => trig.id, getHandlerFunction: () => t.fn };
            triggers.push(trig);
            return trig;
          },
        };
        return b;
      },
      getProjectTriggers: () => [...triggers],
      deleteTrigger: (t: V) => {
        const i = triggers.indexOf(t);
        if (i >= 0) triggers.splice(i, 1);
      },
    },
    DriveApp: {
      getFileById: (id: string) => {
        const file = driveFiles[id];
        if (!file) throw new Error(`Exception: No item with the given ID could be found: ${id}`);
        const bytes = new Uint8Array(fs.readFileSync(file));
        const type = file.endsWith('.pdf') ? 'application/pdf' : 'application/octet-stream';
        return { getName: () => path.basename(file), getMimeType: () => type, getBlob: () => new FakeBlob(bytes, type, path.basename(file)) };
      },
    },
    HtmlService: {
      createHtmlOutputFromFile: (name: string) => htmlOutput(fs.readFileSync(path.join(DIST, `${name}.html`), 'utf8')),
      createTemplateFromFile: (name: string) => {
        const src = fs.readFileSync(path.join(DIST, `${name}.html`), 'utf8');
        const t: V = { evaluate: () => htmlOutput(src.replace(/<\?=\s*(\w+)\s*\?>/g, (_, k: string) => String(t[k] ?? ''))) };
        return t;
      },
    },
    Utilities: {
      sleep: (ms: number) => {
        stats.sleptMs += ms;
        stats.sleeps.push(ms);
        (opts.sleep ?? blockingSleep)(ms);
      },
      DigestAlgorithm: { SHA_256: 'sha256', MD5: 'md5' },
      Charset: { UTF_8: 'utf8' },
      computeDigest: (alg: string, value: V) => Array.from(crypto.createHash(alg).update(toBuf(value)).digest(), (b) => (b > 127 ? b - 256 : b)),
      base64Encode: (v: V) => toBuf(v).toString('base64'),
      base64EncodeWebSafe: (v: V) => toBuf(v).toString('base64url') + '='.repeat((3 - (toBuf(v).length % 3)) % 3),
      newBlob: (data: V, type = 'application/octet-stream', name = '') => new FakeBlob(new Uint8Array(toBuf(data)), type, name),
      getUuid: () => crypto.randomUUID(),
    },
    Session: { getActiveUser: () => ({ getEmail: () => opts.user ?? 'alice@example.com' }), getEffectiveUser: () => ({ getEmail: () => opts.user ?? 'alice@example.com' }) },
    Charts: { ChartType: { LINE: 'LINE', BAR: 'BAR' } },
    UrlFetchApp: {
      fetch: (url: string, params?: V) => doFetch([toRaw(url, params)])[0],
      fetchAll: (reqs: V[]) => doFetch(reqs.map((r) => toRaw(r.url, r))),
    },
  };
  function htmlOutput(content: string) {
    const o: V = { content, title: '', width: 0, height: 0 };
    o.setTitle = (t: string) => ((o.title = t), o);
    o.setWidth = (w: number) => ((o.width = w), o);
    o.setHeight = (x: number) => ((o.height = x), o);
    o.getContent = () => o.content;
    return o;
  }
  const ctx = vm.createContext(globals);
  vm.runInContext(fs.readFileSync(path.join(DIST, 'Code.js'), 'utf8'), ctx, { filename: 'Code.js' });
  // Call the top-level stubs, as Apps Script does.
  const fns = new Proxy({} as Record<EntryPoint, (...a: V[]) => V>, {
    get: (_t, name: string) => {
      const f = (ctx as V)[name];
      if (typeof f !== 'function') throw new Error(`No top-level function ${name} in Code.js`);
      return (...a: V[]) => f(...a);
    },
  });
  return Object.assign(h, { fns, ss, userProps, docProps, docCache, userCache, triggers, ui, stats, advance: (ms: number) => (skew += ms) }) as Harness;
}

export function buildAddon(): void {
  const r = spawnSync(process.execPath, [path.join(ROOT, 'scripts/build-addon.mjs')], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`addon build failed: ${r.stderr}`);
}
