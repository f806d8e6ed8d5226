/**
 * The Apps Script execution model the stand-ins share: a simulated clock, one execution at a time
 * (who runs it, in which AuthMode, with which time limit, with or without a document), and the
 * guard every stand-in method calls first (time limit, AuthMode, then manifest scopes).
 */
import { scopesFor } from './scopes.js';

export type AuthMode = 'NONE' | 'LIMITED' | 'CUSTOM_FUNCTION' | 'FULL';

/**
 * "Quotas for Google Services", current limitations: custom function runtime 30 s / execution;
 * script runtime 6 min / execution (triggers, menu items, google.script.run calls).
 */
export const CUSTOM_FUNCTION_LIMIT_MS = 30_000;
export const SCRIPT_LIMIT_MS = 6 * 60_000;

/** An error as Apps Script raises it (`Exception: …` in the execution log). */
export class GasError extends Error {
  override name = 'Exception';
}

export class Clock {
  constructor(public now: number = Date.UTC(2026, 0, 5, 9, 0, 0)) {}
  advance(ms: number): void {
    this.now += Math.max(0, ms);
  }
}

export interface Execution {
  user: string;
  mode: AuthMode;
  started: number;
  limitMs: number;
  /** False in a time-driven run where no spreadsheet is active (see World.triggerDocumentContext). */
  documentContext: boolean;
  /** Names of the service methods called, in order (tests read it). */
  calls: string[];
}

/**
 * What each AuthMode lets a script reach. Sources: the AuthMode enum reference
 * (reference/script/auth-mode: NONE "does not allow access to any services that require
 * authorization", LIMITED "a limited subset of services" in simple onOpen/onEdit, FULL "all
 * services that require authorization"), the Editor add-on authorization guide
 * (workspace/add-ons/concepts/editor-auth-lifecycle: in AuthMode.NONE an add-on can build its
 * menu but not read properties, the document or any authorized service) and the custom functions
 * guide's service table (apps-script/guides/sheets/functions: Cache, Lock, Properties, URL Fetch,
 * Utilities work; Spreadsheet is read only, no set*(), no other spreadsheets; services that need
 * the user's authorization throw "You do not have permission to call X"; Lock "works").
 */
const NONE_OK =
  /^(SpreadsheetApp\.getUi|Ui\.createAddonMenu|Menu\.\w+|Session\.(getActiveUserLocale|getTemporaryActiveUserKey)|Utilities\.\w+)$/;
const LIMITED_OK =
  /^(SpreadsheetApp\.(getActive|getActiveSpreadsheet|getActiveSheet|getActiveRange|getUi|newRichTextValue)|(Spreadsheet|Sheet|Range|DeveloperMetadata|DeveloperMetadataFinder|EmbeddedChartBuilder|RichTextValueBuilder|RichTextValue)\.\w+|Ui\.createAddonMenu|Menu\.\w+|(PropertiesService|Properties|CacheService|Cache|HtmlService|HtmlOutput|HtmlTemplate)\.\w+|Session\.\w+|Utilities\.\w+)$/;
const CUSTOM_FUNCTION_OK =
  /^(SpreadsheetApp\.(getActive|getActiveSpreadsheet|getActiveSheet|getActiveRange)|(Spreadsheet|Sheet|Range|DeveloperMetadata)\.get\w+|Spreadsheet\.createDeveloperMetadataFinder|(DeveloperMetadataFinder|RichTextValue)\.\w+|(PropertiesService|Properties|CacheService|Cache|HtmlService|HtmlOutput|HtmlTemplate|UrlFetchApp|LockService|Lock)\.\w+|Session\.\w+|Utilities\.\w+)$/;

/**
 * Simulated time each service call takes, against the execution's limit. Google publishes no
 * per-call latency; its "Best practices" guide (apps-script/guides/support/best-practices, "Use
 * batch operations") times a script that reads and writes 100 x 100 cells one call at a time at
 * 70 s against about 1 s batched: some 20,000 calls, about 3.5 ms each. That figure is used for
 * the spreadsheet's calls and, as an assumption of the same order (no figure is published), for
 * Properties, Cache and Lock; UrlFetch costs its round trip (url-fetch.ts); building menus, HTML,
 * digests and the like cost nothing here. A floor, not a measurement: an add-on that fits its time
 * only because calls are free fails here.
 */
export const SPREADSHEET_CALL_MS = 3.5;
export const STORAGE_CALL_MS = 3;
export function callCostMs(method: string): number {
  if (/^(SpreadsheetApp|Spreadsheet|Sheet|Range|DeveloperMetadata|DeveloperMetadataFinder)\./.test(method)) return SPREADSHEET_CALL_MS;
  if (/^(PropertiesService|Properties|CacheService|Cache|LockService|Lock)\./.test(method)) return STORAGE_CALL_MS;
  return 0;
}

export function modeAllows(mode: AuthMode, method: string): boolean {
  if (mode === 'FULL') return true;
  if (mode === 'CUSTOM_FUNCTION') return CUSTOM_FUNCTION_OK.test(method);
  if (mode === 'LIMITED') return LIMITED_OK.test(method);
  return NONE_OK.test(method);
}

/** The manifest's explicit scopes, and the guard each stand-in method runs first. */
export class Guard {
  constructor(
    private scopes: () => readonly string[],
    private clock: Clock,
    private current: () => Execution | null,
    /** The scopes the running user has consented to (by default, all the manifest asks for). */
    private granted: (user: string) => readonly string[] = () => this.scopes(),
  ) {}

  /** Called at each service call, before it runs (World.interleave starts another execution here). */
  onCall: ((method: string, exec: Execution, detail?: string) => void) | null = null;

  /** The running execution; null while the test itself acts (as a person in the Sheets UI would). */
  get exec(): Execution | null {
    return this.current();
  }

  /** Throws when the execution is past its time limit (checked at every service call, as a running script is stopped). */
  checkTime(): void {
    const e = this.exec;
    if (e && this.clock.now - e.started > e.limitMs) throw new GasError('Exceeded maximum execution time');
  }

  /**
   * Time limit, then AuthMode, then scopes: the order a script meets them in. No checks outside an
   * execution. `detail` (a property key, say) is for onCall only.
   */
  call(method: string, detail?: string): Execution | null {
    const e = this.exec;
    if (!e) return null;
    this.checkTime();
    e.calls.push(method);
    if (!modeAllows(e.mode, method)) throw new GasError(`You do not have permission to call ${method}`);
    const need = scopesFor(method);
    if (need.length > 0 && !need.some((s) => this.scopes().includes(s))) {
      throw new GasError(`Specified permissions are not sufficient to call ${method}. Required permissions: (${need.join(' || ')})`);
    }
    // AuthorizationInfo reference: an execution may start without the user's consent to every
    // scope; a call needing one not granted fails. The text is the one commonly reported from
    // triggers after an update added scopes (Google's pages give none).
    const granted = this.granted(e.user);
    if (need.length > 0 && !need.some((s) => granted.includes(s))) throw new GasError('Authorization is required to perform that action.');
    this.clock.advance(callCostMs(method));
    this.onCall?.(method, e, detail);
    return e;
  }
}
