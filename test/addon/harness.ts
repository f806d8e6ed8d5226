/**
 * Runs the built add-on (dist/addon/Code.js) on the Apps Script stand-ins of ./standin (one World
 * per spreadsheet, one Harness per user), against the real connector in a child process: the
 * add-on calls the allowlisted https://covercheck.example.com, which the UrlFetch stand-in sends to
 * the child's loopback address.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { built } from '../helpers/build.js';
import type { FakeTrigger } from './standin/script-app.js';
import type { MetadataEvent } from './standin/spreadsheet.js';
import { SyncHttp } from './standin/sync-http.js';
import { World, type UserState, type WorldOptions } from './standin/world.js';

export { SyncHttp, World };
export const ROOT = path.resolve(import.meta.dirname, '../..');
export const DIST = path.join(ROOT, 'dist/addon');

type V = any;

/** The connector origin the manifest allowlists (its first urlFetchWhitelist prefix that isn't Google's). */
export const CONNECTOR = (() => {
  const m = JSON.parse(fs.readFileSync(path.join(ROOT, 'appsscript.json'), 'utf8')) as { urlFetchWhitelist?: string[] };
  const p = (m.urlFetchWhitelist ?? []).find((x) => !x.startsWith('https://www.googleapis.com/'));
  if (!p) throw new Error('appsscript.json allowlists no connector URL');
  return new URL(p).origin;
})();

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

/** Starts a TypeScript child process that prints one JSON line when ready; stopped with SIGTERM. */
export async function startChild<T>(script: string, args: string[]): Promise<T & { stop(): Promise<void> }> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, script), ...args], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    const rl = readline.createInterface({ input: child.stdout! });
    rl.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return {
    ...(JSON.parse(line) as T),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

export async function startConnectorChild(spec: {
  extraction?: boolean;
  env?: Record<string, string>;
  google?: boolean;
  slowRegistry?: boolean;
  operatorRegistry?: boolean;
  keys: Record<string, { mode?: 'live' | 'test'; credits?: number; scopes?: string[] }>;
}): Promise<ChildConnector> {
  // The child can't ask vitest for the run's bundle: it is handed the extraction host.
  return startChild<Omit<ChildConnector, 'stop'>>('connector-child.ts', [
    JSON.stringify(spec.extraction ? { ...spec, extractionHost: built().extractHost } : spec),
  ]);
}

/**
 * The add-on's Spreadsheet stand-in and the Sheets API stand-in in a connector child started with
 * `google: true` are one spreadsheet seen from two sides: this forwards the developer metadata the
 * add-on adds or removes (as an editor) to the child's control routes, synchronously, as the add-on
 * runs (pass it as `onMetadata`). Google's copy of the spreadsheet must exist first (PUT /sheet);
 * a refusal there fails the add-on's call, as Google's would.
 */
export function metadataMirror(http: SyncHttp, child: ChildConnector): (e: MetadataEvent) => void {
  const control = child.google?.control;
  if (!control) throw new Error('metadataMirror needs a connector child started with google: true');
  return (e) => {
    const id = `id=${encodeURIComponent(e.spreadsheetId)}`;
    const [r] =
      e.op === 'add'
        ? http.send([
            {
              url: `${control}/metadata?${id}`,
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ key: e.key, value: e.value ?? undefined, visibility: e.visibility }),
            },
          ])
        : http.send([
            {
              url: `${control}/metadata?${id}&key=${encodeURIComponent(e.key)}&value=${encodeURIComponent(e.value ?? '')}`,
              method: 'DELETE',
              headers: {},
            },
          ]);
    if (r!.status !== (e.op === 'add' ? 200 : 204))
      throw new Error(`metadata mirror: ${e.op} answered ${r!.status ?? r!.error} ${Buffer.from(r!.body ?? []).toString('utf8')}`);
  };
}

// ---------------------------------------------------------------- one user of the add-on

/** The add-on's top-level functions (addon/src/main.ts's entryPoints; test/addon/addon.test.ts holds the two equal). */
export const ENTRY_POINTS = [
  'VERIFYPOLICY',
  'updatePendingResults',
  'onOpen',
  'onInstall',
  'showVerifySidebar',
  'showWatchSidebar',
  'showPdfSidebar',
  'showDatasetSidebar',
  'showSettings',
  'getSettings',
  'saveSettings',
  'clearKey',
  'testConnection',
  'grantKeyToSpreadsheet',
  'revokeGrant',
  'detectRowMapping',
  'rowsToVerify',
  'startRowsRun',
  'pollRowsRun',
  'jumpToRow',
  'addPdfLinks',
  'pollPdfQueue',
  'uploadNextPdf',
  'reviewPdfFile',
  'confirmExtraction',
  'discardPdfFile',
  'showPdfPicker',
  'getPickerConfig',
  'pickedPdf',
  'pickCancelled',
  'pickerAlive',
  'getPick',
  'searchDatasets',
  'previewDataset',
  'importDataset',
  'listSchedules',
  'removeSchedule',
  'refreshScheduledImports',
  'refreshScheduleNow',
  'resumeSchedule',
  'getSheetsInfo',
  'listConnectorSchedules',
  'createConnectorSchedule',
  'removeConnectorSchedule',
  'resumeConnectorSchedule',
  'getBindingStatus',
  'bindSpreadsheet',
  'disconnectSpreadsheet',
  'detectWatchRows',
  'watchSelectedRows',
  'listWatches',
  'pauseWatch',
  'resumeWatch',
  'deleteWatch',
  'getRowHistory',
] as const;
export type EntryPoint = (typeof ENTRY_POINTS)[number];

export interface HarnessOptions extends Partial<Omit<WorldOptions, 'http' | 'dir'>> {
  /** Who runs the calls (default: the spreadsheet's owner). */
  user?: string;
  /** Another user of an existing spreadsheet. */
  world?: World;
  /** The connector child's URL: the add-on reaches it as CONNECTOR. */
  connector?: string;
}

export interface Harness {
  world: World;
  user: string;
  /**
   * The add-on's top-level functions, called as Sheets calls them: VERIFYPOLICY as a custom
   * function (AuthMode.CUSTOM_FUNCTION, 30 s), onOpen as the simple trigger of an add-on enabled
   * in the document (AuthMode.LIMITED), everything else as a menu item or google.script.run call
   * from the sidebar (AuthMode.FULL, 6 min).
   */
  fns: Record<EntryPoint, (...a: V[]) => V>;
  /** onOpen in the given mode (NONE: installed, not yet used in this document). */
  open(mode?: 'NONE' | 'LIMITED'): void;
  /** onInstall, which runs in AuthMode.FULL. */
  install(): void;
  /** The same spreadsheet as another user. */
  as(user: string): Harness;
  ss: World['ss'];
  userProps: UserState['userProps'];
  userCache: UserState['userCache'];
  docProps: World['docProps'];
  docCache: World['docCache'];
  ui: UserState['ui'];
  stats: UserState['stats'];
  /** This user's installable triggers. */
  readonly triggers: FakeTrigger[];
  /** Moves the clock; due triggers run. */
  advance(ms: number): void;
}

const MODE: Record<string, 'CUSTOM_FUNCTION' | 'LIMITED'> = { VERIFYPOLICY: 'CUSTOM_FUNCTION', onOpen: 'LIMITED' };

export function userHarness(world: World, user: string): Harness {
  const u = world.user(user);
  const fns = new Proxy({} as Record<EntryPoint, (...a: V[]) => V>, {
    get:
      (_t, name: string) =>
      (...a: V[]) =>
        world.run(user, MODE[name] ?? 'FULL', name, name === 'onOpen' && a.length === 0 ? [{ authMode: 'LIMITED' }] : a),
  });
  return {
    world,
    user,
    fns,
    open: (mode = 'LIMITED') => world.run(user, mode, 'onOpen', [{ authMode: mode }]),
    install: () => world.run(user, 'FULL', 'onInstall', [{ authMode: 'FULL' }]),
    as: (other) => userHarness(world, other),
    ss: world.ss,
    userProps: u.userProps,
    userCache: u.userCache,
    docProps: world.docProps,
    docCache: world.docCache,
    ui: u.ui,
    stats: u.stats,
    get triggers() {
      return world.triggers.filter((t) => t.user === user);
    },
    advance: (ms) => world.advance(ms),
  };
}

/** A fresh spreadsheet with the add-on (or another user of `opts.world`). */
export function loadAddon(http: SyncHttp, opts: HarnessOptions = {}): Harness {
  const { user, world, connector, hosts, ...rest } = opts;
  const w = world ?? new World({ http, dir: DIST, hosts: { ...(connector ? { [CONNECTOR]: connector } : {}), ...hosts }, ...rest });
  return userHarness(w, user ?? w.owner);
}

export function buildAddon(): void {
  const r = spawnSync(process.execPath, [path.join(ROOT, 'scripts/build-addon.mjs')], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`addon build failed: ${r.stderr}`);
}
