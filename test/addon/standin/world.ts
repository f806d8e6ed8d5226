/**
 * One spreadsheet with the add-on installed, as several users see it: the document's properties,
 * cache, developer metadata and sheets are shared; user properties, user caches, triggers, quotas
 * and UI belong to each user. Each call of an entry point is one execution: a fresh global scope
 * (Apps Script keeps nothing between executions), an AuthMode, a time limit on the simulated clock.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { DriveStandin, type DriveFileSpec } from './drive.js';
import { makeHtmlService, makeUi, type UiLog } from './html.js';
import { makeLockService, newLockTable, releaseAll } from './locks.js';
import { checkAllowlist, readManifest, type Manifest } from './manifest.js';
import { Clock, CUSTOM_FUNCTION_LIMIT_MS, GasError, Guard, SCRIPT_LIMIT_MS, type AuthMode, type Execution } from './runtime.js';
import { makeScriptApp, type FakeTrigger } from './script-app.js';
import {
  BooleanCriteria,
  DeveloperMetadataVisibility,
  FakeSpreadsheet,
  newConditionalFormatRule,
  newRichTextValue,
  type MetadataEvent,
} from './spreadsheet.js';
import { DailyQuota, FakeCache, FakeProperties, PROPERTY_LIMITS } from './storage.js';
import type { SyncHttp } from './sync-http.js';
import { makeUrlFetchApp, URLFETCH_LIMITS, type FetchStats } from './url-fetch.js';
import { FakeBlob, makeSession, makeUtilities, type SleepStats } from './utilities.js';

type V = any;

export interface UserStats extends FetchStats, SleepStats {}

export interface UserState {
  email: string;
  userProps: FakeProperties;
  userCache: FakeCache;
  fetchQuota: DailyQuota;
  propsQuota: DailyQuota;
  ui: UiLog;
  stats: UserStats;
  installed: boolean;
  /** What Session.getActiveUserLocale answers for this user ('en', 'de', 'fr', or '' when unknown). */
  locale: string;
  /** The scopes this user consented to; null: all the manifest asks for now (see World.setManifestScopes). */
  grantedScopes: string[] | null;
}

export interface WorldOptions {
  http: SyncHttp;
  /** Folder with Code.js, the HTML files and appsscript.json (dist/addon). */
  dir: string;
  spreadsheetId?: string;
  /** The spreadsheet's owner: custom functions run with the owner's user properties. */
  owner?: string;
  /** Origin the add-on calls -> where it really listens, e.g. https://covercheck.example.com -> http://127.0.0.1:4321. */
  hosts?: Record<string, string>;
  drive?: Record<string, DriveFileSpec>;
  cloudProjectNumber?: string;
  scriptProperties?: Record<string, string>;
  /** Simulated duration of each UrlFetch round trip when longer than the real one. */
  rttMs?: number;
  /** Also called on each Utilities.sleep (the simulated clock moves regardless). */
  sleep?: (ms: number) => void;
  /** "Test an Editor add-on": installable triggers aren't supported in test deployments. */
  deployment?: 'published' | 'test';
  /**
   * Whether a time-driven run has the spreadsheet as its active document. The time-driven event
   * object carries no `source`, and SpreadsheetApp.getActiveSpreadsheet() "returns null if there
   * is none"; the docs do not say a time-driven add-on run has one, so the add-on must cope with both.
   */
  triggerDocumentContext?: boolean;
  onMetadata?: (e: MetadataEvent) => void;
  manifest?: Manifest;
}

const scripts = new Map<string, { mtime: number; script: vm.Script }>();
function compiled(file: string): vm.Script {
  const mtime = fs.statSync(file).mtimeMs;
  const hit = scripts.get(file);
  if (hit && hit.mtime === mtime) return hit.script;
  const script = new vm.Script(fs.readFileSync(file, 'utf8'), { filename: 'Code.js' });
  scripts.set(file, { mtime, script });
  return script;
}

export class World {
  readonly clock = new Clock();
  readonly manifest: Manifest;
  readonly guard: Guard;
  exec: Execution | null = null;
  readonly ss: FakeSpreadsheet;
  readonly docProps: FakeProperties;
  readonly docCache: FakeCache;
  readonly scriptProps: FakeProperties;
  readonly scriptCache: FakeCache;
  readonly users = new Map<string, UserState>();
  readonly triggers: FakeTrigger[] = [];
  readonly drive: DriveStandin;
  /** LockService's locks (locks.ts), shared by every execution in this world. */
  readonly locks = newLockTable();
  readonly owner: string;
  /** Executions to start while another is at a given service call (interleave). */
  private interleaves: { when: (method: string, exec: Execution, detail?: string) => boolean; then: () => void }[] = [];
  offline = false;
  deployment: 'published' | 'test';
  triggerDocumentContext: boolean;
  private script: vm.Script;
  private SimDate: DateConstructor;

  constructor(readonly opts: WorldOptions) {
    this.manifest = opts.manifest ?? readManifest(path.join(opts.dir, 'appsscript.json'));
    if (this.manifest.urlFetchWhitelist) checkAllowlist(this.manifest.urlFetchWhitelist);
    this.guard = new Guard(
      () => this.manifest.oauthScopes ?? [],
      this.clock,
      () => this.exec,
      (user) => this.grantedScopes(user),
    );
    this.guard.onCall = (method, exec, detail) => this.onCall(method, exec, detail);
    this.ss = new FakeSpreadsheet(opts.spreadsheetId ?? 'spreadsheet-0001', this.guard, opts.onMetadata ?? null);
    // Custom functions in formulas run as their own executions (formulas.ts).
    this.ss.formulas.host = {
      currentUser: () => this.exec?.user ?? null,
      owner: opts.owner ?? 'alice@example.com',
      runCustomFunction: (user, name, args) => this.run(user, 'CUSTOM_FUNCTION', name, args),
    };
    const quota = () => (this.exec ? this.user(this.exec.user).propsQuota : null);
    this.docProps = new FakeProperties(this.guard, quota);
    this.scriptProps = new FakeProperties(this.guard, quota);
    Object.assign(this.scriptProps.data, opts.scriptProperties ?? {});
    this.docCache = new FakeCache(this.guard, this.clock);
    this.scriptCache = new FakeCache(this.guard, this.clock);
    this.drive = new DriveStandin(opts.drive ?? {}, opts.cloudProjectNumber ?? '123456789012');
    this.owner = opts.owner ?? 'alice@example.com';
    this.deployment = opts.deployment ?? 'published';
    this.triggerDocumentContext = opts.triggerDocumentContext ?? true;
    this.script = compiled(path.join(opts.dir, 'Code.js'));
    const clock = this.clock;
    this.SimDate = class SimDate extends Date {
      constructor(...a: unknown[]) {
        if (a.length === 0) super(clock.now);
        else super(...(a as [string]));
      }
      static override now() {
        return clock.now;
      }
    } as unknown as DateConstructor;
    const SimDate = this.SimDate;
    this.ss.dateOf = (ms) => new SimDate(ms);
    // The script's zone is the manifest's timeZone (manifest structure: "The script time zone"): a
    // script's Date getters and its new Date(y, m, d) work in it. The vm shares the process's zone.
    if (typeof this.manifest.timeZone === 'string' && process.env.TZ !== this.manifest.timeZone) process.env.TZ = this.manifest.timeZone;
  }

  /**
   * Concurrent executions, by nesting: the first time a running execution makes a service call
   * that `when` accepts (`detail`: the property key of a Properties call), it is suspended before the call runs, `then` runs (typically another
   * execution: a second user's formula, a trigger, a sidebar call) to its end, and the first goes
   * on. The clock is shared, so the second's time counts against the first's limit, as wall time
   * does. Locks the first holds stay held meanwhile (locks.ts).
   */
  interleave(when: (method: string, exec: Execution, detail?: string) => boolean, then: () => void): void {
    this.interleaves.push({ when, then });
  }

  private onCall(method: string, exec: Execution, detail?: string): void {
    const i = this.interleaves.findIndex((x) => x.when(method, exec, detail));
    if (i < 0) return;
    const [x] = this.interleaves.splice(i, 1);
    this.exec = null;
    try {
      x!.then();
    } finally {
      this.exec = exec;
    }
  }

  user(email: string): UserState {
    let u = this.users.get(email);
    if (!u) {
      const refuseWrite = () => {
        const e = this.exec;
        // Custom functions guide: "getUserProperties() only gets the properties of the spreadsheet owner. Spreadsheet editors can't set user properties in a custom function."
        return e && e.mode === 'CUSTOM_FUNCTION' && e.user !== email
          ? "You do not have permission to call Properties.setProperty: in a custom function, user properties are the spreadsheet owner's and read only to editors."
          : null;
      };
      u = {
        email,
        userProps: new FakeProperties(this.guard, () => (this.exec ? this.user(this.exec.user).propsQuota : null), refuseWrite),
        userCache: new FakeCache(this.guard, this.clock),
        fetchQuota: new DailyQuota(this.clock, URLFETCH_LIMITS.dailyCalls, 'urlfetch'),
        propsQuota: new DailyQuota(this.clock, PROPERTY_LIMITS.dailyCalls, 'properties'),
        ui: { menus: [], sidebars: [], dialogs: [] },
        stats: { requests: 0, roundTrips: 0, log: [], sleptMs: 0, sleeps: [] },
        installed: true,
        locale: 'en',
        grantedScopes: null,
      };
      this.users.set(email, u);
    }
    return u;
  }

  /** The scopes `user` has consented to. */
  grantedScopes(user: string): readonly string[] {
    return this.user(user).grantedScopes ?? this.manifest.oauthScopes ?? [];
  }

  /**
   * A new version of the add-on whose manifest asks for other scopes: users who had authorized the
   * old version keep only their old consent until they authorize again (authorize), so
   * getAuthorizationInfo(FULL) answers REQUIRED for them (AuthorizationInfo reference).
   */
  setManifestScopes(scopes: string[]): void {
    for (const u of this.users.values()) u.grantedScopes ??= [...(this.manifest.oauthScopes ?? [])];
    this.manifest.oauthScopes = [...scopes];
  }

  /** `user` accepts the authorization prompt: consent to every scope the manifest asks for now. */
  authorize(user: string): void {
    this.user(user).grantedScopes = null;
  }

  /** A token for the Drive API and Picker: the user and the manifest's scopes. */
  issueToken(user: string): string {
    const t = `ya29.standin-${crypto.randomBytes(12).toString('hex')}`;
    this.drive.tokens.set(t, { user, scopes: [...this.grantedScopes(user)] });
    return t;
  }

  private globals(exec: Execution): Record<string, V> {
    const g = this.guard;
    const u = this.user(exec.user);
    const doc = exec.documentContext;
    const ss = this.ss;
    return {
      console,
      Date: this.SimDate,
      Logger: { log: () => undefined },
      SpreadsheetApp: {
        DeveloperMetadataVisibility,
        BooleanCriteria,
        newConditionalFormatRule: () => (g.call('SpreadsheetApp.newConditionalFormatRule'), newConditionalFormatRule(g)),
        newRichTextValue: () => (g.call('SpreadsheetApp.newRichTextValue'), newRichTextValue(g)),
        getActiveSpreadsheet: () => (g.call('SpreadsheetApp.getActiveSpreadsheet'), doc ? ss : null),
        getActive: () => (g.call('SpreadsheetApp.getActive'), doc ? ss : null),
        getActiveSheet: () => (g.call('SpreadsheetApp.getActiveSheet'), doc ? ss.active : null),
        getActiveRange: () => (g.call('SpreadsheetApp.getActiveRange'), doc ? ss.activeRange : null),
        getUi: () => (g.call('SpreadsheetApp.getUi'), makeUi(g, () => u.ui)),
        openById: () => {
          g.call('SpreadsheetApp.openById');
          throw new GasError('stand-in: SpreadsheetApp.openById is not modelled');
        },
      },
      PropertiesService: {
        getDocumentProperties: () => (g.call('PropertiesService.getDocumentProperties'), doc ? this.docProps : null),
        getUserProperties: () => (
          g.call('PropertiesService.getUserProperties'),
          exec.mode === 'CUSTOM_FUNCTION' ? this.user(this.owner).userProps : u.userProps
        ),
        getScriptProperties: () => (g.call('PropertiesService.getScriptProperties'), this.scriptProps),
      },
      // reference/cache/cache-service#getDocumentCache: null "outside of the context of a containing document".
      CacheService: {
        getDocumentCache: () => (g.call('CacheService.getDocumentCache'), doc ? this.docCache : null),
        getUserCache: () => (g.call('CacheService.getUserCache'), u.userCache),
        getScriptCache: () => (g.call('CacheService.getScriptCache'), this.scriptCache),
      },
      ScriptApp: makeScriptApp({
        clock: this.clock,
        guard: g,
        triggers: this.triggers,
        documentId: () => (this.exec?.documentContext ? this.ss.id : null),
        issueToken: (x) => this.issueToken(x),
        scopes: () => this.manifest.oauthScopes ?? [],
        granted: (x) => this.grantedScopes(x),
      }),
      LockService: makeLockService({
        table: this.locks,
        guard: g,
        clock: this.clock,
        documentId: () => (doc ? ss.id : null),
        user: () => exec.user,
      }),
      DriveApp: this.drive.driveApp(g, (b, t, n) => new FakeBlob(b, t, n)),
      HtmlService: makeHtmlService(g, this.opts.dir),
      Utilities: makeUtilities(g, this.clock, () => u.stats, this.opts.sleep),
      Session: makeSession(g, () => u.locale),
      Charts: { ChartType: { LINE: 'LINE', BAR: 'BAR' } },
      UrlFetchApp: makeUrlFetchApp({
        guard: g,
        clock: this.clock,
        allowlist: this.manifest.urlFetchWhitelist,
        hosts: this.opts.hosts ?? {},
        drive: this.drive,
        http: this.opts.http,
        rttMs: this.opts.rttMs ?? 0,
        offline: () => this.offline,
        quota: () => u.fetchQuota,
        stats: () => u.stats,
      }),
    };
  }

  /** Runs one top-level function as `user` in `mode`: a fresh global scope, the time limit of its kind. */
  run(user: string, mode: AuthMode, name: string, args: unknown[], opts: { documentContext?: boolean } = {}): V {
    if (this.exec) throw new Error(`stand-in: ${name} called while ${this.exec.calls.at(-1) ?? 'another execution'} runs`);
    // Formulas whose cells were edited since are recalculated first, and those this execution edits when it ends.
    this.ss.formulas.drain();
    const exec: Execution = {
      user,
      mode,
      started: this.clock.now,
      limitMs: mode === 'CUSTOM_FUNCTION' ? CUSTOM_FUNCTION_LIMIT_MS : SCRIPT_LIMIT_MS,
      documentContext: opts.documentContext ?? true,
      calls: [],
    };
    this.exec = exec;
    try {
      const ctx = vm.createContext(this.globals(exec));
      this.script.runInContext(ctx);
      const f = (ctx as Record<string, unknown>)[name];
      if (typeof f !== 'function') throw new GasError(`Script function not found: ${name}`);
      const out = (f as (...a: unknown[]) => unknown)(...args);
      this.guard.checkTime();
      return out;
    } finally {
      releaseAll(this.locks, exec);
      this.exec = null;
      this.ss.formulas.drain();
    }
  }

  /**
   * Moves the clock, running each time-driven trigger when it comes due, as its owner, in
   * AuthMode.FULL, with the time-driven event object (reference: event objects, time-driven).
   * Test deployments run none; triggers of a user who removed the add-on stop firing.
   */
  advance(ms: number): void {
    const end = this.clock.now + ms;
    for (;;) {
      const due =
        this.deployment === 'test'
          ? []
          : this.triggers.filter((t) => t.nextAt <= end && this.user(t.user).installed).sort((a, b) => a.nextAt - b.nextAt);
      const t = due[0];
      if (!t) break;
      this.clock.now = Math.max(this.clock.now, t.nextAt);
      t.nextAt += t.everyMs;
      this.fire(t);
    }
    this.clock.now = Math.max(this.clock.now, end);
  }

  fire(t: FakeTrigger): void {
    const d = new Date(this.clock.now);
    const event = {
      authMode: 'FULL',
      triggerUid: t.uid,
      year: d.getUTCFullYear(),
      month: d.getUTCMonth() + 1,
      'day-of-month': d.getUTCDate(),
      hour: d.getUTCHours(),
      minute: d.getUTCMinutes(),
      second: d.getUTCSeconds(),
      timezone: 'UTC',
    };
    t.runs++;
    try {
      this.run(t.user, 'FULL', t.handler, [event], { documentContext: this.triggerDocumentContext });
    } catch (e) {
      t.failures.push(e instanceof Error ? e.message : String(e));
    }
  }
}
