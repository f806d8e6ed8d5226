/**
 * The add-on's hourly refresh trigger under Apps Script's trigger rules, on the stand-ins against a
 * real connector child: its trigger found with getUserTriggers(spreadsheet) (never another
 * spreadsheet's), the cap of 20 triggers per user per script told in words, a refresh held back
 * when the day's trigger time is used up, and a re-authorization needed after an update pausing
 * the schedules with the reason instead of failing every hour.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAddonRig, type AddonRig } from '../helpers/addon-rig.js';
import { CONNECTOR, loadAddon, type SyncHttp, type ChildConnector, type Harness } from './harness.js';

const SLUG = 'uk-rpi-vehicles-tax-insurance-yoy';
const AUTH = 'https://www.googleapis.com/auth/';
let rig: AddonRig<'conn'>;
let conn: ChildConnector;
let http: SyncHttp;

beforeAll(async () => {
  rig = await startAddonRig({ conn: { keys: { live: { mode: 'live', credits: 100 } } } });
  ({ http, conn } = rig);
}, 60_000);
afterAll(async () => {
  await rig?.stop();
});

function addon(opts: { rttMs?: number } = {}): Harness {
  const h = loadAddon(http, { connector: conn.url, ...opts });
  h.fns.saveSettings({ url: CONNECTOR, key: conn.keys.live });
  return h;
}
/** A Covercheck trigger of `user`'s in another spreadsheet (the add-on made it there). */
function elsewhere(h: Harness, docId: string, user = h.user) {
  h.world.triggers.push({
    uid: `t-${docId}`,
    user,
    handler: 'refreshScheduledImports',
    docId,
    everyMs: 3600_000,
    nextAt: Number.MAX_SAFE_INTEGER,
    failures: [],
    runs: 0,
  });
}

describe("the add-on's trigger, found with getUserTriggers(spreadsheet)", () => {
  it("with its record lost, the trigger of this spreadsheet is adopted, never another spreadsheet's; removing the last schedule deletes this one only", () => {
    const h = addon();
    elsewhere(h, 'another-spreadsheet');
    h.fns.importDataset({ slug: SLUG, sheetName: 'RPI', limit: 6, schedule: 'daily' });
    const mine = h.triggers.find((t) => t.docId === h.ss.id)!;
    // The user properties lost every record of triggers (as after "Remove add-on" and reinstalling).
    for (const k of Object.keys(h.userProps.data)) if (k.startsWith('covercheck.trigger.')) delete h.userProps.data[k];
    const id = h.fns.importDataset({ slug: SLUG, sheetName: 'RPI 2', limit: 6, schedule: 'daily' }).schedule.id;
    expect(h.triggers.map((t) => t.docId).sort()).toEqual(['another-spreadsheet', h.ss.id].sort());
    h.fns.removeSchedule(h.fns.listSchedules().schedules.find((s: { id: string }) => s.id !== id).id);
    h.fns.removeSchedule(id);
    expect(h.triggers.map((t) => t.uid)).toEqual(['t-another-spreadsheet']);
    expect(h.triggers.some((t) => t.uid === mine.uid)).toBe(false);
  });

  it('20 triggers per user per script: a schedule that would need a 21st is refused in words, and nothing is written', () => {
    const h = addon();
    for (let i = 0; i < 20; i++) elsewhere(h, `sheet-${i}`);
    expect(() => h.fns.importDataset({ slug: SLUG, sheetName: 'RPI', limit: 6, schedule: 'hourly' })).toThrow(
      /^Covercheck can't add an hourly refresh here: your Google account already has 20 Covercheck refresh triggers, one per spreadsheet, the most Apps Script allows/,
    );
    expect(h.ss.sheets.some((s) => s.name === 'RPI')).toBe(false);
    // The connector's schedules need no trigger.
    expect(h.triggers).toHaveLength(20);
  });
});

describe('daily trigger runtime (Quotas: triggers total runtime 90 min / day consumer, 6 h Workspace)', () => {
  it("a day's hourly refreshes stop at the add-on's share of the day and say so; they resume the next day", () => {
    // Each UrlFetch round trip takes 150 s on the simulated clock: one refresh (2 calls) is 5 minutes of trigger time.
    const h = addon({ rttMs: 150_000 });
    h.fns.importDataset({ slug: SLUG, sheetName: 'RPI', limit: 6, schedule: 'hourly' });
    h.advance(24 * 3600_000);
    const v = h.fns.listSchedules();
    const trig = v.schedules[0].runs.filter((r: { by: string }) => r.by === 'trigger');
    // 60 minutes a day for the add-on's refreshes: 12 runs of 5 minutes.
    expect(trig.length).toBeLessThanOrEqual(12);
    expect(trig.length).toBeGreaterThanOrEqual(10);
    expect(h.triggers[0]!.failures).toEqual([]);
    expect(v.triggerError).toMatch(/used today's share of Apps Script's trigger time/);
    h.advance(24 * 3600_000);
    expect(h.fns.listSchedules().schedules[0].runs.filter((r: { by: string }) => r.by === 'trigger').length).toBeGreaterThan(trig.length);
  });
});

describe('authorization after an update (ScriptApp.getAuthorizationInfo)', () => {
  it("an update the owner has not authorized pauses the owner's schedules with the reason at the next hour, without a failed run; authorizing again resumes them", () => {
    const h = addon();
    h.fns.importDataset({ slug: SLUG, sheetName: 'RPI', limit: 6, schedule: 'hourly' });
    const scopes = h.world.manifest.oauthScopes!;
    // The new version asks for one scope more and fetches only with it granted: the old consent no longer covers UrlFetch.
    h.world.setManifestScopes([...scopes, `${AUTH}script.locale`]);
    h.world.user(h.user).grantedScopes = scopes.filter((s) => s !== `${AUTH}script.external_request`);
    h.advance(3600_000);
    let v = h.as('bob@example.com').fns.listSchedules().schedules[0];
    expect(v.paused).toBe(
      'Paused: Covercheck needs permission again from whoever set up this refresh, after an update of the add-on. They can open Extensions > Covercheck in this spreadsheet and accept; the refreshes then resume by themselves.',
    );
    expect(v).toMatchObject({ failures: 0, lastError: null });
    expect(v.runs.map((r: { by: string }) => r.by)).toEqual(['manual']);
    // Later hours neither fail nor refresh.
    h.advance(3 * 3600_000);
    expect(h.triggers[0]!.failures).toEqual([]);
    expect(h.fns.listSchedules().schedules[0].runs).toHaveLength(1);
    // The owner accepts the prompt: the next hour resumes the schedule and refreshes it.
    h.world.authorize(h.user);
    h.advance(3600_000);
    v = h.fns.listSchedules().schedules[0];
    expect(v.paused).toBeNull();
    expect(v.runs[0]).toMatchObject({ ok: true, by: 'trigger' });
  });
});
