/**
 * The Apps Script stand-ins refuse what Google refuses: each documented rule the add-on relies on
 * is broken here on purpose, by a small probe script run on the stand-in, and the stand-in must
 * throw (or evict, or stay silent) as the named document says. Without these, a lenient stand-in
 * would let the add-on's tests pass on code that breaks in Apps Script.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allowlisted, checkAllowlist, type Manifest } from './standin/manifest.js';
import { SyncHttp } from './standin/sync-http.js';
import { World, type WorldOptions } from './standin/world.js';

const AUTH = 'https://www.googleapis.com/auth/';
const ALL_SCOPES = ['spreadsheets.currentonly', 'script.external_request', 'script.container.ui', 'script.scriptapp', 'drive.file'].map(
  (s) => AUTH + s,
);
let dir: string;
let http: SyncHttp;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gas-probe-'));
  // The probe: run(src) evaluates a snippet with the execution's globals, as a script body would.
  fs.writeFileSync(
    path.join(dir, 'Code.js'),
    'var seen = typeof seen === "undefined" ? 0 : seen + 1;\nfunction run(src) { return new Function(src)(); }\nfunction seenBefore() { return seen; }\nfunction tick(e) { return e.triggerUid; }\n' +
      // Custom functions for the recalculation rules: STAMP says what it read and when it ran.
      'function STAMP(a) { return (Array.isArray(a) ? a.map(function (r) { return r[0]; }).join("+") : a) + "@" + Date.now(); }\n' +
      'function TWICE(a) { return a.map(function (r) { return [r[0], r[0]]; }); }\nfunction BOOM() { throw new Error("no"); }\nfunction SLOW() { Utilities.sleep(31000); return 1; }\n',
  );
  fs.writeFileSync(path.join(dir, 'page.html'), '<p><?= who ?></p><?!= raw ?>');
  fs.writeFileSync(path.join(dir, 'appsscript.json'), '{}');
  http = new SyncHttp();
});
afterAll(async () => {
  await http.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function world(manifest: Manifest = {}, opts: Partial<WorldOptions> = {}): World {
  return new World({
    http,
    dir,
    manifest: { oauthScopes: ALL_SCOPES, urlFetchWhitelist: ['https://www.googleapis.com/drive/v3/files/'], ...manifest },
    ...opts,
  });
}
const run = (
  w: World,
  src: string,
  mode: 'NONE' | 'LIMITED' | 'CUSTOM_FUNCTION' | 'FULL' = 'FULL',
  user = w.owner,
  documentContext = true,
) => w.run(user, mode, 'run', [src], { documentContext });

describe('scopes come from the manifest (reference "Authorization" sections; Authorization scopes guide)', () => {
  it('Session.getActiveUser needs userinfo.email', () => {
    expect(() => run(world(), 'return Session.getActiveUser().getEmail()')).toThrow(
      'Specified permissions are not sufficient to call Session.getActiveUser. Required permissions: (https://www.googleapis.com/auth/userinfo.email)',
    );
    expect(run(world({ oauthScopes: [...ALL_SCOPES, `${AUTH}userinfo.email`] }), 'return Session.getActiveUser().getEmail()')).toBe(
      'alice@example.com',
    );
  });
  it('UrlFetchApp needs script.external_request; showSidebar script.container.ui; triggers script.scriptapp', () => {
    const w = world({ oauthScopes: [`${AUTH}spreadsheets.currentonly`] });
    expect(() => run(w, 'UrlFetchApp.fetch("https://www.googleapis.com/drive/v3/files/x")')).toThrow(
      /not sufficient to call UrlFetchApp\.fetch\. Required permissions: \(https:\/\/www\.googleapis\.com\/auth\/script\.external_request\)/,
    );
    expect(() => run(w, 'SpreadsheetApp.getUi().showSidebar(HtmlService.createHtmlOutputFromFile("page"))')).toThrow(
      /call Ui\.showSidebar/,
    );
    expect(() => run(w, 'ScriptApp.newTrigger("f")')).toThrow(/call ScriptApp\.newTrigger/);
    expect(run(w, 'return SpreadsheetApp.getActiveSpreadsheet().getActiveSheet().getName()')).toBe('Sheet1');
  });
  it('spreadsheets.currentonly (or spreadsheets) for the document, its developer metadata included', () => {
    const w = world({ oauthScopes: [`${AUTH}script.external_request`] });
    expect(() => run(w, 'SpreadsheetApp.getActiveSpreadsheet()')).toThrow(
      /Required permissions: \(https:\/\/www\.googleapis\.com\/auth\/spreadsheets\.currentonly \|\| https:\/\/www\.googleapis\.com\/auth\/spreadsheets\)/,
    );
  });
  it('DriveApp needs drive.readonly or drive: drive.file is not enough', () => {
    const opts = { drive: { f1: { bytes: new Uint8Array([1]), name: 'a.pdf' } } };
    expect(() => run(world({}, opts), 'DriveApp.getFileById("f1")')).toThrow(
      /call DriveApp\.getFileById\. Required permissions: \(https:\/\/www\.googleapis\.com\/auth\/drive\.readonly \|\| https:\/\/www\.googleapis\.com\/auth\/drive\)/,
    );
    expect(run(world({ oauthScopes: [...ALL_SCOPES, `${AUTH}drive.readonly`] }, opts), 'return DriveApp.getFileById("f1").getName()')).toBe(
      'a.pdf',
    );
  });
});

describe('AuthMode (AuthMode reference; Editor add-on authorization; custom functions guide)', () => {
  it('NONE: the add-on menu only: no properties, no document', () => {
    const w = world();
    expect(run(w, 'SpreadsheetApp.getUi().createAddonMenu().addItem("Go", "go").addToUi(); return 1', 'NONE')).toBe(1);
    expect(() => run(w, 'PropertiesService.getDocumentProperties()', 'NONE')).toThrow(
      'You do not have permission to call PropertiesService.getDocumentProperties',
    );
    expect(() => run(w, 'SpreadsheetApp.getActiveSpreadsheet()', 'NONE')).toThrow(
      /permission to call SpreadsheetApp\.getActiveSpreadsheet/,
    );
  });
  it('LIMITED: the bound document and properties, but no service needing authorization', () => {
    const w = world();
    expect(
      run(
        w,
        'SpreadsheetApp.getActiveSheet().getRange(1, 1).setValue("x"); PropertiesService.getDocumentProperties().setProperty("k", "v"); return 1',
        'LIMITED',
      ),
    ).toBe(1);
    expect(() => run(w, 'UrlFetchApp.fetch("https://www.googleapis.com/drive/v3/files/x")', 'LIMITED')).toThrow(
      'You do not have permission to call UrlFetchApp.fetch',
    );
    expect(() => run(w, 'SpreadsheetApp.getUi().showSidebar(HtmlService.createHtmlOutputFromFile("page"))', 'LIMITED')).toThrow(
      /call Ui\.showSidebar/,
    );
    expect(() => run(w, 'ScriptApp.getOAuthToken()', 'LIMITED')).toThrow(/call ScriptApp\.getOAuthToken/);
    expect(run(w, 'return Session.getTemporaryActiveUserKey().length > 0', 'LIMITED')).toBe(true);
  });
  it('CUSTOM_FUNCTION: read-only spreadsheet, URL Fetch works, no triggers, no token, no email', () => {
    const w = world({ oauthScopes: [...ALL_SCOPES, `${AUTH}userinfo.email`] });
    w.ss.active.set(1, 1, 'hello');
    expect(run(w, 'return SpreadsheetApp.getActiveSheet().getRange(1, 1).getValue()', 'CUSTOM_FUNCTION')).toBe('hello');
    expect(() => run(w, 'SpreadsheetApp.getActiveSheet().getRange(1, 1).setValue("x")', 'CUSTOM_FUNCTION')).toThrow(
      'You do not have permission to call Range.setValue',
    );
    expect(() => run(w, 'SpreadsheetApp.getActiveSpreadsheet().insertSheet("x")', 'CUSTOM_FUNCTION')).toThrow(
      /call Spreadsheet\.insertSheet/,
    );
    expect(() => run(w, 'SpreadsheetApp.getActiveSpreadsheet().addDeveloperMetadata("k", "v")', 'CUSTOM_FUNCTION')).toThrow(
      /call Spreadsheet\.addDeveloperMetadata/,
    );
    expect(() => run(w, 'ScriptApp.newTrigger("f")', 'CUSTOM_FUNCTION')).toThrow(/call ScriptApp\.newTrigger/);
    expect(() => run(w, 'ScriptApp.getOAuthToken()', 'CUSTOM_FUNCTION')).toThrow(/call ScriptApp\.getOAuthToken/);
    expect(() => run(w, 'SpreadsheetApp.getUi()', 'CUSTOM_FUNCTION')).toThrow(/call SpreadsheetApp\.getUi/);
    expect(run(w, 'return Session.getActiveUser().getEmail()', 'CUSTOM_FUNCTION')).toBe('');
    expect(
      run(
        w,
        'return UrlFetchApp.fetch("https://www.googleapis.com/drive/v3/files/x", {muteHttpExceptions: true}).getResponseCode()',
        'CUSTOM_FUNCTION',
      ),
    ).toBe(401);
  });
  it('each execution starts from a fresh global scope', () => {
    const w = world();
    expect(w.run(w.owner, 'FULL', 'seenBefore', [])).toBe(0);
    expect(w.run(w.owner, 'FULL', 'seenBefore', [])).toBe(0);
  });
});

describe('time limits on the simulated clock (Quotas: custom function runtime 30 s, script runtime 6 min)', () => {
  it('a custom function is stopped after 30 s, a script after 6 min', () => {
    const w = world();
    expect(run(w, 'Utilities.sleep(29000); return "ok"', 'CUSTOM_FUNCTION')).toBe('ok');
    expect(() => run(w, 'Utilities.sleep(31000); return "late"', 'CUSTOM_FUNCTION')).toThrow('Exceeded maximum execution time');
    expect(run(w, 'Utilities.sleep(5 * 60000); return "ok"')).toBe('ok');
    expect(() => run(w, 'Utilities.sleep(5 * 60000); SpreadsheetApp.getActiveSpreadsheet(); Utilities.sleep(2 * 60000)')).toThrow(
      'Exceeded maximum execution time',
    );
  });
  it('service calls take time (Best practices, "Use batch operations": 100 x 100 cells one call at a time, 70 s): cell by cell passes 30 s, one range does not', () => {
    const w = world();
    const cellByCell =
      'var s = SpreadsheetApp.getActiveSheet(); for (var i = 1; i <= 100; i++) for (var j = 1; j <= 100; j++) s.getRange(i, j).getValue(); return "done"';
    expect(() => run(w, cellByCell, 'CUSTOM_FUNCTION')).toThrow('Exceeded maximum execution time');
    const t0 = w.clock.now;
    expect(run(w, 'return SpreadsheetApp.getActiveSheet().getRange(1, 1, 100, 100).getValues().length', 'CUSTOM_FUNCTION')).toBe(100);
    expect(w.clock.now - t0).toBeLessThan(100);
    // Properties and Cache calls take time too: 12,000 reads are 36 s.
    expect(() =>
      run(
        w,
        'var p = PropertiesService.getDocumentProperties(); for (var i = 0; i < 12000; i++) p.getProperty("k"); return 1',
        'CUSTOM_FUNCTION',
      ),
    ).toThrow('Exceeded maximum execution time');
  });
  it('slow round trips count: a custom function whose fetches pass 30 s is stopped', () => {
    const w = world({}, { rttMs: 16_000 });
    expect(() =>
      run(
        w,
        'for (var i = 0; i < 2; i++) UrlFetchApp.fetch("https://www.googleapis.com/drive/v3/files/x", {muteHttpExceptions: true});',
        'CUSTOM_FUNCTION',
      ),
    ).toThrow('Exceeded maximum execution time');
  });
});

describe('triggers (Editor add-on triggers, Restrictions; Test an Editor add-on)', () => {
  it('no more often than hourly; one time-driven trigger per user per document; others see only their own', () => {
    const w = world();
    expect(() => run(w, 'ScriptApp.newTrigger("f").timeBased().everyMinutes(30).create()')).toThrow(
      'Add-ons may not create time-based triggers that run more often than once per hour.',
    );
    run(w, 'ScriptApp.newTrigger("f").timeBased().everyHours(1).create()');
    expect(() => run(w, 'ScriptApp.newTrigger("g").timeBased().everyDays(1).create()')).toThrow(
      'This add-on has created too many time-based triggers in this document for this Google user account.',
    );
    run(w, 'ScriptApp.newTrigger("f").timeBased().everyHours(1).create()', 'FULL', 'bob@example.com');
    expect(w.triggers.map((t) => t.user)).toEqual(['alice@example.com', 'bob@example.com']);
    expect(run(w, 'return ScriptApp.getProjectTriggers().length', 'FULL', 'bob@example.com')).toBe(1);
    expect(() => run(w, 'ScriptApp.deleteTrigger({__uid: "' + w.triggers[0]!.uid + '"})', 'FULL', 'bob@example.com')).toThrow(
      /not one of the current user's triggers/,
    );
  });
  it('a trigger runs as its owner, hourly, in AuthMode.FULL; never in a test deployment; not after the add-on is removed', () => {
    const w = world();
    run(w, 'ScriptApp.newTrigger("tick").timeBased().everyHours(1).create()');
    w.advance(3 * 3600_000);
    expect(w.triggers[0]!).toMatchObject({ runs: 3, failures: [] });
    w.deployment = 'test';
    w.advance(3 * 3600_000);
    expect(w.triggers[0]!.runs).toBe(3);
    w.deployment = 'published';
    w.user(w.owner).installed = false;
    w.advance(3 * 3600_000);
    expect(w.triggers[0]!.runs).toBe(3);
  });
  it('without a document context, a time-driven run has no active spreadsheet, document properties or document cache', () => {
    const w = world();
    expect(
      run(
        w,
        'return [SpreadsheetApp.getActiveSpreadsheet(), PropertiesService.getDocumentProperties(), CacheService.getDocumentCache()]',
        'FULL',
        w.owner,
        false,
      ),
    ).toEqual([null, null, null]);
    expect(() => run(w, 'ScriptApp.newTrigger("f").timeBased().everyHours(1).create()', 'FULL', w.owner, false)).toThrow(
      /only create triggers for the file/,
    );
  });
});

describe('triggers: getUserTriggers, the cap of 20 per user per script, authorization after an update (ScriptApp reference; Quotas for Google Services)', () => {
  /** A trigger of `user`'s that the add-on made in another spreadsheet. */
  const elsewhere = (w: World, user: string, docId: string) =>
    w.triggers.push({ uid: `elsewhere-${docId}`, user, handler: 'f', docId, everyMs: 3600_000, nextAt: Infinity, failures: [], runs: 0 });

  it("getUserTriggers(spreadsheet): the current user's triggers in that spreadsheet only; getProjectTriggers: all of the user's", () => {
    const w = world();
    elsewhere(w, w.owner, 'other-spreadsheet');
    run(w, 'ScriptApp.newTrigger("f").timeBased().everyHours(1).create()');
    run(w, 'ScriptApp.newTrigger("f").timeBased().everyHours(1).create()', 'FULL', 'bob@example.com');
    expect(
      run(w, 'return ScriptApp.getUserTriggers(SpreadsheetApp.getActiveSpreadsheet()).map(function (t) { return t.getUniqueId(); })'),
    ).toEqual([w.triggers[1]!.uid]);
    expect(run(w, 'return ScriptApp.getProjectTriggers().length')).toBe(2);
    expect(() => run(w, 'ScriptApp.getUserTriggers("spreadsheet-0001")')).toThrow('Invalid argument: spreadsheet');
    expect(() =>
      run(world({ oauthScopes: [`${AUTH}spreadsheets.currentonly`] }), 'ScriptApp.getUserTriggers(SpreadsheetApp.getActiveSpreadsheet())'),
    ).toThrow(/call ScriptApp\.getUserTriggers/);
  });

  it("20 triggers per user per script, across documents: the 21st is refused with Apps Script's text; another user is not affected", () => {
    const w = world();
    for (let i = 0; i < 19; i++) elsewhere(w, w.owner, `doc-${i}`);
    run(w, 'ScriptApp.newTrigger("f").timeBased().everyHours(1).create()');
    w.triggers.pop();
    elsewhere(w, w.owner, 'doc-19');
    expect(() => run(w, 'ScriptApp.newTrigger("f").timeBased().everyHours(1).create()')).toThrow(
      'This script has too many triggers. Triggers must be deleted from the script before more can be added.',
    );
    run(w, 'ScriptApp.newTrigger("f").timeBased().everyHours(1).create()', 'FULL', 'bob@example.com');
  });

  it('after the manifest asks for a new scope: getAuthorizationInfo(FULL) is REQUIRED for users who authorized before, calls needing the new scope fail, others work; authorizing again clears it', () => {
    const w = world();
    const status = (user = w.owner) =>
      run(
        w,
        'var i = ScriptApp.getAuthorizationInfo(ScriptApp.AuthMode.FULL); return [i.getAuthorizationStatus(), i.getAuthorizationUrl()]',
        'FULL',
        user,
      );
    expect(status()).toEqual(['NOT_REQUIRED', null]);
    w.setManifestScopes([...ALL_SCOPES, `${AUTH}userinfo.email`]);
    expect(status()[0]).toBe('REQUIRED');
    expect(status()[1]).toMatch(/^https:\/\//);
    expect(() => run(w, 'return Session.getActiveUser().getEmail()')).toThrow('Authorization is required to perform that action.');
    expect(run(w, 'return SpreadsheetApp.getActiveSpreadsheet().getId()')).toBe('spreadsheet-0001');
    // A user who first authorizes the new version consents to all of it.
    expect(status('carol@example.com')).toEqual(['NOT_REQUIRED', null]);
    w.authorize(w.owner);
    expect(status()).toEqual(['NOT_REQUIRED', null]);
    expect(run(w, 'return Session.getActiveUser().getEmail()')).toBe('alice@example.com');
  });
});

describe('CacheService (Cache reference: put, putAll)', () => {
  it('keeps at most 1,000 items: over the cap, the 900 farthest from expiration', () => {
    const w = world();
    run(w, 'var c = CacheService.getDocumentCache(); for (var i = 0; i < 1000; i++) c.put("k" + i, "v", 600 + i);');
    expect(w.docCache.size()).toBe(1000);
    run(w, 'CacheService.getDocumentCache().put("new", "v", 21600)');
    expect(w.docCache.size()).toBe(900);
    expect(
      run(w, 'var c = CacheService.getDocumentCache(); return [c.get("new"), c.get("k999"), c.get("k101"), c.get("k100"), c.get("k0")]'),
    ).toEqual(['v', 'v', 'v', null, null]);
  });
  it('refuses long keys, values over 100 KB and expirations outside 1..21600 s; 600 s by default', () => {
    const w = world();
    expect(() => run(w, 'CacheService.getUserCache().put(new Array(252).join("k"), "v")')).toThrow(/Argument too large: key/);
    expect(() => run(w, 'CacheService.getUserCache().put("k", new Array(102402).join("v"))')).toThrow('Argument too large: value');
    expect(() => run(w, 'CacheService.getUserCache().put("k", "v", 21601)')).toThrow(/expirationInSeconds/);
    expect(() => run(w, 'CacheService.getUserCache().putAll({a: "v"}, 0)')).toThrow(/expirationInSeconds/);
    run(w, 'CacheService.getUserCache().put("k", "v")');
    w.advance(599_000);
    expect(run(w, 'return CacheService.getUserCache().get("k")')).toBe('v');
    w.advance(2_000);
    expect(run(w, 'return CacheService.getUserCache().get("k")')).toBeNull();
  });
  it('counts the 100 KB in UTF-8 bytes, for every value of a putAll, which then stores nothing', () => {
    const w = world();
    // 35,000 characters, 105,000 bytes.
    expect(() => run(w, 'CacheService.getUserCache().put("k", new Array(35001).join("\u20ac"))')).toThrow('Argument too large: value');
    expect(() => run(w, 'CacheService.getUserCache().putAll({ a: "v", b: new Array(102402).join("v") })')).toThrow(
      'Argument too large: value',
    );
    expect(run(w, 'return CacheService.getUserCache().getAll(["k", "a", "b"])')).toEqual({});
  });
  it('a put the test makes fail (a service error) throws once and stores nothing', () => {
    const w = world();
    const cache = w.user(w.owner).userCache;
    cache.refusePut((keys) => keys.includes('b'));
    run(w, 'CacheService.getUserCache().put("a", "v")');
    expect(() => run(w, 'CacheService.getUserCache().putAll({ b: "v", c: "v" })')).toThrow('Service error: Cache');
    expect(cache.refusals).toBe(1);
    expect(run(w, 'return CacheService.getUserCache().getAll(["a", "b", "c"])')).toEqual({ a: 'v' });
    run(w, 'CacheService.getUserCache().putAll({ b: "v", c: "v" })');
    expect(run(w, 'return CacheService.getUserCache().getAll(["b", "c"])')).toEqual({ b: 'v', c: 'v' });
  });
});

describe('PropertiesService (Quotas: 9 KB a value, 500 KB a store; custom functions guide)', () => {
  it('refuses a value over 9 KB and a store over 500 KB', () => {
    const w = world();
    expect(() => run(w, 'PropertiesService.getDocumentProperties().setProperty("k", new Array(9 * 1024 + 2).join("x"))')).toThrow(
      /Argument too large: value/,
    );
    run(
      w,
      'var p = PropertiesService.getDocumentProperties(); for (var i = 0; i < 55; i++) p.setProperty("k" + i, new Array(9 * 1024).join("x"));',
    );
    expect(() => run(w, 'PropertiesService.getDocumentProperties().setProperty("more", new Array(9 * 1024).join("x"))')).toThrow(
      'You have exceeded the property storage quota. Please remove some properties and try again.',
    );
  });
  it("in a custom function, user properties are the owner's, and an editor can't set them", () => {
    const w = world();
    run(w, 'PropertiesService.getUserProperties().setProperty("who", "alice")');
    run(w, 'PropertiesService.getUserProperties().setProperty("who", "bob")', 'FULL', 'bob@example.com');
    expect(run(w, 'return PropertiesService.getUserProperties().getProperty("who")', 'CUSTOM_FUNCTION', 'bob@example.com')).toBe('alice');
    expect(() =>
      run(w, 'PropertiesService.getUserProperties().setProperty("who", "mallory")', 'CUSTOM_FUNCTION', 'bob@example.com'),
    ).toThrow(/user properties are the spreadsheet owner's/);
    expect(run(w, 'return PropertiesService.getUserProperties().getProperty("who")', 'FULL', 'bob@example.com')).toBe('bob');
  });
  it("several users: document properties are shared, user properties are each user's", () => {
    const w = world();
    run(
      w,
      'PropertiesService.getDocumentProperties().setProperty("d", "1"); PropertiesService.getUserProperties().setProperty("u", "alice")',
    );
    expect(
      run(
        w,
        'return [PropertiesService.getDocumentProperties().getProperty("d"), PropertiesService.getUserProperties().getProperty("u")]',
        'FULL',
        'bob@example.com',
      ),
    ).toEqual(['1', null]);
  });
});

describe('LockService and concurrent executions (Lock and LockService references; custom functions guide)', () => {
  const HOLD =
    'var l = LockService.getDocumentLock(); l.waitLock(1000); PropertiesService.getDocumentProperties().setProperty("step", "held"); l.releaseLock(); return "done"';
  it("a document lock held by one execution: another user's tryLock answers false after its timeout, waitLock throws; both may run in a custom function", () => {
    const w = world();
    const seen: unknown[] = [];
    // Bob's executions run while Alice's is at her setProperty, holding the lock.
    w.interleave(
      (m, _e, key) => m === 'Properties.setProperty' && key === 'step',
      () => {
        const t0 = w.clock.now;
        // The whole timeout, plus the calls' own time (runtime.ts callCostMs).
        seen.push(
          run(w, 'return LockService.getDocumentLock().tryLock(2000)', 'CUSTOM_FUNCTION', 'bob@example.com'),
          Math.floor((w.clock.now - t0) / 100) * 100,
        );
        try {
          run(w, 'LockService.getDocumentLock().waitLock(500)', 'FULL', 'bob@example.com');
        } catch (e) {
          seen.push((e as Error).message);
        }
        // The user lock and the script lock are other locks.
        seen.push(
          run(w, 'var l = LockService.getUserLock(); var ok = l.tryLock(10); l.releaseLock(); return ok', 'FULL', 'bob@example.com'),
        );
      },
    );
    expect(run(w, HOLD)).toBe('done');
    expect(seen).toEqual([false, 2000, 'Lock timeout: another process was holding the lock for too long.', true]);
    // Released: the next execution gets it at once.
    expect(run(w, 'return LockService.getDocumentLock().tryLock(0)', 'FULL', 'bob@example.com')).toBe(true);
  });
  it('getDocumentLock is null without a document; a lock not released is freed when the execution ends, and counted', () => {
    const w = world();
    expect(run(w, 'return LockService.getDocumentLock()', 'FULL', w.owner, false)).toBeNull();
    expect(w.locks.leaked).toEqual([]);
    run(w, 'LockService.getDocumentLock().waitLock(10)');
    expect(w.locks.leaked).toEqual([`document:${w.ss.id}`]);
    expect(w.locks.held.size).toBe(0);
  });
  it('LockService is refused in AuthMode.NONE (it is no menu call)', () => {
    expect(() => run(world(), 'LockService.getDocumentLock()', 'NONE')).toThrow(
      'You do not have permission to call LockService.getDocumentLock',
    );
  });
});

describe('UrlFetchApp (Allowlist URLs guide; Quotas: URL Fetch)', () => {
  it('fetches only allowlisted https URLs', () => {
    const w = world();
    expect(() => run(w, 'UrlFetchApp.fetch("https://evil.example.net/x")')).toThrow(
      /not allowed: it matches no prefix of the manifest's urlFetchWhitelist/,
    );
    expect(() => run(w, 'UrlFetchApp.fetch("http://www.googleapis.com/drive/v3/files/x")')).toThrow(/not allowed/);
    expect(() =>
      run(
        w,
        'UrlFetchApp.fetchAll([{url: "https://www.googleapis.com/drive/v3/files/x"}, {url: "https://www.googleapis.com/drive/v2/files/x"}])',
      ),
    ).toThrow(/drive\/v2/);
    expect(w.user(w.owner).stats.requests).toBe(0);
  });
  it('matches prefixes as the guide says', () => {
    const p = ['https://example.com/foo', 'https://*.example.org/api/'];
    for (const ok of [
      'https://example.com/foo',
      'https://example.com/foo/',
      'https://example.com/foo/bar',
      'https://example.com/foo?bar',
      'https://example.com/foo#bar',
      'https://a.b.example.org/api/x',
    ])
      expect(allowlisted(ok, p)).toBe(true);
    for (const no of [
      'https://example.com/foobar',
      'https://example.com/Foo',
      'http://example.com/foo',
      'https://example.org/api/x',
      'https://a.example.org/apix',
    ])
      expect(allowlisted(no, p)).toBe(false);
    expect(() => checkAllowlist(['https://example.com'])).toThrow(/non-empty path/);
    expect(() => checkAllowlist(['http://example.com/'])).toThrow(/https/);
    expect(() => checkAllowlist(['https://*.*.example.com/'])).toThrow(/one wildcard/);
    expect(() => checkAllowlist(['https://sub.*.example.com/'])).toThrow(/leading/);
  });
  it('refuses URLs over 2 KB and payloads over 50 MB', () => {
    const w = world();
    expect(() => run(w, 'UrlFetchApp.fetch("https://www.googleapis.com/drive/v3/files/" + new Array(2100).join("x"))')).toThrow(
      /URL Length/,
    );
    expect(() =>
      run(
        w,
        'UrlFetchApp.fetch("https://www.googleapis.com/drive/v3/files/x", {method: "post", payload: new Array(50 * 1024 * 1024 + 2).join("x")})',
      ),
    ).toThrow(/POST Size/);
  });
  it('20,000 calls a day per user, counted per request of a fetchAll; reset 24 h after the first', () => {
    const w = world();
    const req = '{url: "https://www.googleapis.com/drive/v3/files/x", muteHttpExceptions: true}';
    run(w, `UrlFetchApp.fetchAll([${req}])`);
    w.user(w.owner).fetchQuota.count = 19_999;
    expect(() => run(w, `UrlFetchApp.fetchAll([${req}, ${req}])`)).toThrow('Service invoked too many times for one day: urlfetch.');
    expect(run(w, `return UrlFetchApp.fetchAll([${req}]).length`, 'FULL', 'bob@example.com')).toBe(1);
    w.advance(24 * 3600_000);
    expect(run(w, `return UrlFetchApp.fetchAll([${req}, ${req}]).length`)).toBe(2);
  });
  it("the Drive API answers a drive.file token only for files picked with the app's id", () => {
    const w = world({}, { drive: { f1: { bytes: new Uint8Array([37, 80]), name: 'a.pdf' } }, cloudProjectNumber: '42' });
    const get =
      'var t = ScriptApp.getOAuthToken(); return UrlFetchApp.fetch("https://www.googleapis.com/drive/v3/files/f1?alt=media", {headers: {Authorization: "Bearer " + t}, muteHttpExceptions: true}).getResponseCode()';
    expect(run(w, get)).toBe(404);
    expect(w.drive.grantPick(w.owner, 'f1', '999')).toBe(false);
    expect(run(w, get)).toBe(404);
    expect(w.drive.grantPick(w.owner, 'f1', '42')).toBe(true);
    expect(run(w, get)).toBe(200);
    expect(run(w, get, 'FULL', 'bob@example.com')).toBe(404);
  });
});

describe('developer metadata and templates', () => {
  it('adds, finds and removes spreadsheet metadata, telling the mirror hook', () => {
    const events: unknown[] = [];
    const w = world({}, { onMetadata: (e) => events.push(e) });
    const id = run(
      w,
      'var ss = SpreadsheetApp.getActiveSpreadsheet(); ss.addDeveloperMetadata("k", "v1", SpreadsheetApp.DeveloperMetadataVisibility.DOCUMENT); return ss.createDeveloperMetadataFinder().withKey("k").find()[0].getId()',
    );
    expect(w.ss.metadata.map((m) => [m.key, m.value, m.visibility])).toEqual([['k', 'v1', 'DOCUMENT']]);
    run(w, `SpreadsheetApp.getActiveSpreadsheet().createDeveloperMetadataFinder().withId(${id}).find()[0].remove()`);
    expect(w.ss.metadata).toEqual([]);
    expect(events).toEqual([
      { op: 'add', spreadsheetId: w.ss.id, id, key: 'k', value: 'v1', visibility: 'DOCUMENT' },
      { op: 'remove', spreadsheetId: w.ss.id, id, key: 'k', value: 'v1', visibility: 'DOCUMENT' },
    ]);
  });
  it('printing scriptlets escape, force-printing ones do not', () => {
    const w = world();
    expect(
      run(w, 'var t = HtmlService.createTemplateFromFile("page"); t.who = "<b>"; t.raw = "<i>"; return t.evaluate().getContent()'),
    ).toBe('<p>&lt;b&gt;</p><i>');
  });
});

describe('notes, conditional format rules, columns, locale (reference/spreadsheet/range, sheet, conditional-format-rule-builder; base/session)', () => {
  it("setNotes needs the range's dimensions; an empty note clears; getNotes reads them back", () => {
    const w = world();
    expect(() => run(w, 'SpreadsheetApp.getActiveSheet().getRange(1, 1, 2, 1).setNotes([["a"]])')).toThrow(
      /does not match the number of rows in the range/,
    );
    expect(() => run(w, 'SpreadsheetApp.getActiveSheet().getRange(1, 1, 1, 1).setNotes([["a", "b"]])')).toThrow(/does not match/);
    run(w, 'SpreadsheetApp.getActiveSheet().getRange(1, 1, 2, 1).setNotes([["a"], ["b"]])');
    run(w, 'SpreadsheetApp.getActiveSheet().getRange(2, 1).setNote("")');
    expect(run(w, 'return SpreadsheetApp.getActiveSheet().getRange(1, 1, 2, 1).getNotes()')).toEqual([['a'], ['']]);
    expect(() => run(w, 'SpreadsheetApp.getActiveSheet().getRange(1, 1).setNote("x")', 'CUSTOM_FUNCTION')).toThrow(
      'You do not have permission to call Range.setNote',
    );
  });
  it("setConditionalFormatRules replaces every rule: a script that sets only its own loses the user's", () => {
    const w = world();
    const add = (text: string, keep: boolean) =>
      run(
        w,
        `var s = SpreadsheetApp.getActiveSheet(); var r = SpreadsheetApp.newConditionalFormatRule().whenTextEqualTo("${text}").setBackground("#f00").setRanges([s.getRange(2, 1, 10, 1)]).build(); s.setConditionalFormatRules(${keep ? 's.getConditionalFormatRules().concat([r])' : '[r]'}); return s.getConditionalFormatRules().length`,
      );
    expect(add('user', true)).toBe(1);
    expect(add('mine', true)).toBe(2);
    expect(add('mine', false)).toBe(1);
    expect(w.ss.active.conditionalFormatRules.map((r) => r.criteria.values[0])).toEqual(['mine']);
  });
  it('a rule needs a condition, its ranges on one sheet, and that sheet', () => {
    const w = world();
    w.ss.sheets.push(new (w.ss.active.constructor as any)('Other', w.ss));
    const pre = 'var ss = SpreadsheetApp.getActiveSpreadsheet(); var a = ss.getSheetByName("Sheet1"), b = ss.getSheetByName("Other"); ';
    expect(() => run(w, pre + 'SpreadsheetApp.newConditionalFormatRule().setRanges([a.getRange(1, 1)]).build()')).toThrow(
      'Conditional format rule must have a condition.',
    );
    expect(() =>
      run(
        w,
        pre + 'SpreadsheetApp.newConditionalFormatRule().whenTextEqualTo("x").setRanges([a.getRange(1, 1), b.getRange(1, 1)]).build()',
      ),
    ).toThrow(/same sheet/);
    expect(() =>
      run(
        w,
        pre +
          'a.setConditionalFormatRules([SpreadsheetApp.newConditionalFormatRule().whenTextEqualTo("x").setRanges([b.getRange(1, 1)]).build()])',
      ),
    ).toThrow(/different sheet/);
    expect(() => run(w, pre + 'a.setConditionalFormatRules([{}])')).toThrow('Invalid argument: rules');
  });
  it("hideColumns, activate, and each user's locale", () => {
    const w = world();
    run(w, 'var s = SpreadsheetApp.getActiveSheet(); s.hideColumns(3); s.getRange(5, 1, 1, 2).activate()');
    expect(w.ss.active.hiddenColumns.has(3)).toBe(true);
    expect(w.ss.activeRange?.row).toBe(5);
    expect(() => run(w, 'SpreadsheetApp.getActiveSheet().hideColumns(0)')).toThrow(/out of bounds/);
    w.user('bob@example.com').locale = 'de';
    expect(run(w, 'return Session.getActiveUserLocale()')).toBe('en');
    expect(run(w, 'return Session.getActiveUserLocale()', 'FULL', 'bob@example.com')).toBe('de');
    expect(run(w, 'return SpreadsheetApp.getActiveSpreadsheet().getSpreadsheetLocale()')).toBe('en_US');
  });
});

describe('rich text (reference/spreadsheet/range#setRichTextValues, #getRichTextValues; rich-text-value-builder, rich-text-value)', () => {
  const linked = (text: string, url: string) =>
    `SpreadsheetApp.newRichTextValue().setText(${JSON.stringify(text)}).setLinkUrl(${JSON.stringify(url)}).build()`;
  const plain = (text: string) => `SpreadsheetApp.newRichTextValue().setText(${JSON.stringify(text)}).build()`;
  const FCA = 'https://register.fca.org.uk/s/search?q=202810&type=Companies';

  it("setRichTextValues needs the range's dimensions and RichTextValues; the text becomes the value, the link reads back", () => {
    const w = world();
    const range = (rows: number, cols: number) => `SpreadsheetApp.getActiveSheet().getRange(1, 1, ${rows}, ${cols})`;
    expect(() => run(w, `${range(2, 1)}.setRichTextValues([[${plain('a')}]])`)).toThrow(/does not match the number of rows in the range/);
    expect(() => run(w, `${range(1, 1)}.setRichTextValues([[${plain('a')}, ${plain('b')}]])`)).toThrow(/does not match/);
    expect(() => run(w, `${range(1, 1)}.setRichTextValues([["a"]])`)).toThrow(
      /don't match the method signature for SpreadsheetApp\.Range\.setRichTextValues/,
    );
    expect(w.ss.active.get(1, 1)).toBe('');

    run(w, `${range(2, 1)}.setRichTextValues([[${linked('U K Insurance Limited', FCA)}], [${plain('Demo Insurance Ltd')}]])`);
    expect([w.ss.active.get(1, 1), w.ss.active.link(1, 1)]).toEqual(['U K Insurance Limited', FCA]);
    expect([w.ss.active.get(2, 1), w.ss.active.link(2, 1)]).toEqual(['Demo Insurance Ltd', null]);
    // getRichTextValues: one per cell, null where the value is not text.
    w.ss.active.set(3, 1, 0.85);
    const read = `return ${range(4, 1)}.getRichTextValues().map(function (r) { return r[0] && [r[0].getText(), r[0].getLinkUrl()]; })`;
    expect(run(w, read)).toEqual([['U K Insurance Limited', FCA], ['Demo Insurance Ltd', null], null, ['', null]]);
    // setText clears a link set before it; a value written over a linked cell drops its link.
    expect(run(w, `var v = SpreadsheetApp.newRichTextValue().setLinkUrl("${FCA}").setText("x").build(); return v.getLinkUrl()`)).toBeNull();
    run(w, 'SpreadsheetApp.getActiveSheet().getRange(1, 1).setValues([["Other Insurer plc"]])');
    expect([w.ss.active.get(1, 1), w.ss.active.link(1, 1)]).toEqual(['Other Insurer plc', null]);
    // Custom functions read rich text, and write none (the AuthMode refuses before the argument is looked at).
    expect(run(w, read, 'CUSTOM_FUNCTION')).toHaveLength(4);
    expect(() => run(w, `${range(1, 1)}.setRichTextValues([[null]])`, 'CUSTOM_FUNCTION')).toThrow(
      'You do not have permission to call Range.setRichTextValues',
    );
  });

  it('setRichTextValues and getRichTextValues need spreadsheets.currentonly or spreadsheets; building a value needs none', () => {
    const scopes = [...ALL_SCOPES];
    // The grant goes while the script runs (at its Utilities.sleep), after it got its range: the refusals are the rich text calls' own.
    const w = world({ oauthScopes: scopes }, { sleep: () => scopes.splice(scopes.indexOf(`${AUTH}spreadsheets.currentonly`), 1) });
    const out = run(
      w,
      `var r = SpreadsheetApp.getActiveSheet().getRange(1, 1); Utilities.sleep(1);
       var v = ${linked('U K Insurance Limited', FCA)}; var out = [v.getText(), v.getLinkUrl()];
       try { r.setRichTextValues([[v]]); } catch (e) { out.push(e.message); }
       try { r.getRichTextValues(); } catch (e) { out.push(e.message); }
       return out;`,
    );
    const need = '(https://www.googleapis.com/auth/spreadsheets.currentonly || https://www.googleapis.com/auth/spreadsheets)';
    expect(out).toEqual([
      'U K Insurance Limited',
      FCA,
      `Specified permissions are not sufficient to call Range.setRichTextValues. Required permissions: ${need}`,
      `Specified permissions are not sufficient to call Range.getRichTextValues. Required permissions: ${need}`,
    ]);
    expect(w.ss.active.get(1, 1)).toBe('');
  });
});

describe("typed cells and the spreadsheet's time zone (range#setValues, #getValues, #getDisplayValues; spreadsheet#getSpreadsheetTimeZone; Sheets API ValueInputOption USER_ENTERED; custom functions guide, data types)", () => {
  const cell = (a1: string) => `SpreadsheetApp.getActiveSheet().getRange("${a1}")`;

  it("the spreadsheet has its own time zone, apart from the script's; only a valid zone can be set, and not from a custom function", () => {
    const w = world({ timeZone: 'Etc/UTC' });
    expect(run(w, 'return SpreadsheetApp.getActiveSpreadsheet().getSpreadsheetTimeZone()')).toBe('Europe/London');
    run(w, 'SpreadsheetApp.getActiveSpreadsheet().setSpreadsheetTimeZone("Europe/Berlin")');
    expect(w.ss.timeZone).toBe('Europe/Berlin');
    expect(run(w, 'return SpreadsheetApp.getActiveSpreadsheet().getSpreadsheetTimeZone()', 'CUSTOM_FUNCTION')).toBe('Europe/Berlin');
    expect(() => run(w, 'SpreadsheetApp.getActiveSpreadsheet().setSpreadsheetTimeZone("Mars/Olympus")')).toThrow(
      'Invalid argument: timeZone Mars/Olympus',
    );
    expect(() => run(w, 'SpreadsheetApp.getActiveSpreadsheet().setSpreadsheetTimeZone("UTC")', 'CUSTOM_FUNCTION')).toThrow(
      'You do not have permission to call Spreadsheet.setSpreadsheetTimeZone',
    );
    // The script's zone is the manifest's: its Date getters are UTC here.
    expect(run(w, 'return new Date(Date.UTC(2024, 5, 1, 23, 30)).getDate()')).toBe(1);
    expect(() => run(world({ oauthScopes: [`${AUTH}script.external_request`] }), 'SpreadsheetApp.getActive()')).toThrow(/not sufficient/);
  });

  it("text that looks like a date becomes a Date at the spreadsheet's midnight: the script's own getters read the day before east of UTC, formatDate in the spreadsheet's zone reads it right", () => {
    const w = world({ timeZone: 'Etc/UTC' });
    w.ss.timeZone = 'Europe/Berlin';
    run(w, `${cell('A1:A2')}.setValues([["2024-06-01"], ["2024-01-15"]])`);
    const a1 = w.ss.active.get(1, 1) as Date;
    expect(a1).toBeInstanceOf(Date);
    expect(a1.getTime()).toBe(Date.UTC(2024, 4, 31, 22));
    expect((w.ss.active.get(2, 1) as Date).getTime()).toBe(Date.UTC(2024, 0, 14, 23));
    // A Date of the script's own realm (instanceof Date holds in the script), read in the wrong zone as the day before.
    expect(
      run(
        w,
        `var v = ${cell('A1')}.getValue(); return [v instanceof Date, v.getDate(), Utilities.formatDate(v, SpreadsheetApp.getActive().getSpreadsheetTimeZone(), "yyyy-MM-dd")]`,
      ),
    ).toEqual([true, 31, '2024-06-01']);
    expect(run(w, `return ${cell('A1:A2')}.getDisplayValues()`)).toEqual([['2024-06-01'], ['2024-01-15']]);
    // Not a day: stays text.
    run(w, `${cell('A3')}.setValue("2024-02-30")`);
    expect(w.ss.active.get(3, 1)).toBe('2024-02-30');
    // Dates in the spreadsheet's locale: 15.01.2024 in de_DE, and only there.
    w.ss.locale = 'de_DE';
    run(w, `${cell('A4')}.setValue("15.01.2024")`);
    expect(w.ss.active.get(4, 1)).toBeInstanceOf(Date);
    expect(w.ss.active.display(4, 1)).toBe('15.01.2024');
    w.ss.locale = 'en_US';
    run(w, `${cell('A5')}.setValue("15.01.2024")`);
    expect(w.ss.active.get(5, 1)).toBe('15.01.2024');
    expect(() => run(w, 'return Utilities.formatDate(new Date(), "Nowhere/Land", "yyyy")')).toThrow(
      'Invalid argument: timeZone Nowhere/Land',
    );
  });

  it('text that looks like a number becomes a double: leading zeros gone, digits past 15 lost, shown in scientific notation; identifiers stay text', () => {
    const w = world();
    run(w, `${cell('A1:D1')}.setValues([["00123", "1234567890123456789", "UKM-1000-0001", "0.85"]])`);
    expect(w.ss.active.row(1)).toEqual([123, 1234567890123456789, 'UKM-1000-0001', 0.85]);
    expect(String(w.ss.active.get(1, 2))).toBe('1234567890123456800');
    expect(run(w, `return [${cell('A1:D1')}.getValues()[0], ${cell('A1:D1')}.getDisplayValues()[0]]`)).toEqual([
      [123, 1234567890123456789, 'UKM-1000-0001', 0.85],
      ['123', '1.23457E+18', 'UKM-1000-0001', '0.85'],
    ]);
    // Numbers written as numbers stay numbers; text with spaces or letters stays text.
    run(w, `${cell('A2:C2')}.setValues([[0.5, " uk ", "h1:abc"]])`);
    expect(w.ss.active.row(2)).toEqual([0.5, ' uk ', 'h1:abc']);
    // Format > Number > Plain text ("@"), or a leading apostrophe: what is typed stays text.
    run(
      w,
      `${cell('A3:B3')}.setNumberFormat("@"); ${cell('A3:B3')}.setValues([["00123", "1234567890123456789"]]); ${cell('C3')}.setValue("'00042")`,
    );
    expect(w.ss.active.row(3)).toEqual(['00123', '1234567890123456789', '00042']);
    expect(() => run(w, `${cell('A4')}.setNumberFormat("#,##0.00")`)).toThrow(/not modelled/);
    // A person typing does the same as setValue.
    w.ss.active.type(5, 1, '0042');
    expect(w.ss.active.get(5, 1)).toBe(42);
  });
});

describe('recalculation only on edit (custom functions guide; range#setFormula, #setFormulas, #getFormulas)', () => {
  const B1 = 'SpreadsheetApp.getActiveSheet().getRange("B1")';

  it('a custom function runs when its formula is entered and when a cell it references changes; not as time passes, the sheet is read, a script runs or another cell changes', () => {
    const w = world();
    const s = w.ss.active;
    s.set(1, 1, 'a');
    run(w, `${B1}.setFormula("=STAMP(A1:A2)")`);
    const t0 = w.clock.now;
    expect(s.get(1, 2)).toBe(`a+@${t0}`);
    expect(w.ss.formulas.runs).toBe(1);
    // Broken on purpose: an hour, reads, scripts (onOpen on reopening is one) and an unreferenced edit leave the cell as it was.
    w.advance(3600_000);
    expect(run(w, `return ${B1}.getValue()`)).toBe(`a+@${t0}`);
    expect(run(w, 'return 1', 'LIMITED')).toBe(1);
    s.set(5, 5, 'x');
    run(w, 'SpreadsheetApp.getActiveSheet().getRange("C3").setValue("y")');
    expect(s.get(1, 2)).toBe(`a+@${t0}`);
    expect(w.ss.formulas.runs).toBe(1);
    // A referenced cell changes, typed or set by a script: it runs again.
    s.set(2, 1, 'b');
    expect(s.get(1, 2)).toBe(`a+b@${w.clock.now}`);
    w.advance(1000);
    run(w, 'SpreadsheetApp.getActiveSheet().getRange("A1").setValue("c")');
    expect(s.get(1, 2)).toBe(`c+b@${w.clock.now}`);
    // The same formula entered again runs again.
    w.advance(1000);
    run(w, `var r = ${B1}; r.setFormulas(r.getFormulas())`);
    expect(s.get(1, 2)).toBe(`c+b@${w.clock.now}`);
    expect(w.ss.formulas.runs).toBe(4);
    expect(run(w, 'return SpreadsheetApp.getActiveSheet().getRange("A1:B1").getFormulas()')).toEqual([['', '=STAMP(A1:A2)']]);
    // A value typed over the formula replaces it: nothing runs any more.
    s.set(1, 2, 'typed');
    s.set(1, 1, 'd');
    expect(s.get(1, 2)).toBe('typed');
    expect(run(w, `return ${B1}.getFormula()`)).toBe('');
    expect(w.ss.formulas.runs).toBe(4);
  });

  it('each run is a custom-function execution (read only, 30 s); a range result fills down and right; an error shows #ERROR!', () => {
    const w = world();
    const s = w.ss.active;
    s.set(1, 1, 'p');
    s.set(2, 1, 'q');
    run(
      w,
      'var sh = SpreadsheetApp.getActiveSheet(); sh.getRange("C1").setFormula("=TWICE(A1:A2)"); sh.getRange("F1:F2").setFormulas([["=BOOM()"], ["=SLOW()"]])',
    );
    expect([s.row(1).slice(2, 4), s.row(2).slice(2, 4)]).toEqual([
      ['p', 'p'],
      ['q', 'q'],
    ]);
    expect([s.get(1, 6), s.get(2, 6)]).toEqual(['#ERROR!', '#ERROR!']);
    expect([...w.ss.formulas.errors.values()]).toEqual(['no', 'Exceeded maximum execution time']);
    expect(() => run(w, `${B1}.setFormula("=STAMP(A1)")`, 'CUSTOM_FUNCTION')).toThrow(
      'You do not have permission to call Range.setFormula',
    );
    expect(() => run(w, `${B1}.setFormulas([["=STAMP(A1)"], ["=STAMP(A2)"]])`)).toThrow(/does not match the number of rows in the range/);
  });
});
