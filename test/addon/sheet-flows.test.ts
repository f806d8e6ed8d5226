/**
 * The add-on's sheet flows on the Apps Script stand-ins against the real connector in a child:
 * delta re-checks (only changed, failed or old rows are sent and paid for), the results summary
 * with its header note and row links, status colours by conditional format rules added once,
 * cell notes on unverified and inconclusive rows in the user's language, and the insurer cell
 * linked to the insurer's register page.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR_UK_MOTOR } from '../helpers/operator-registry.js';
import { FakeConditionalFormatRule } from './standin/spreadsheet.js';
import { startAddonRig, type AddonRig } from '../helpers/addon-rig.js';
import { CONNECTOR, loadAddon, startConnectorChild, type SyncHttp, type ChildConnector, type Harness } from './harness.js';

let rig: AddonRig<'conn'>;
let conn: ChildConnector;
let http: SyncHttp;

beforeAll(async () => {
  rig = await startAddonRig({ conn: { keys: { live: { mode: 'live', credits: 5000 }, sandbox: { mode: 'test' } } } });
  ({ http, conn } = rig);
}, 60_000);
afterAll(async () => {
  await rig?.stop();
});

/** A GET to the connector; a pooled socket the server closed as idle while the vm held this thread fails once: send again. */
async function get(p: string, key?: string): Promise<any> {
  const send = () => fetch(conn.url + p, key ? { headers: { authorization: `Bearer ${key}` } } : {});
  const res = await send().catch((e: { cause?: { code?: string } }) => (e.cause?.code === 'UND_ERR_SOCKET' ? send() : Promise.reject(e)));
  return res.json();
}
const balance = async (key: string) => ((await get('/api/v1/account', key)) as { credits: { balance: number } }).credits.balance;

/** Known demo policies (verified), unknown numbers (unverified) and French health (no registry: inconclusive). */
function rows(n: number): string[][] {
  const known = [
    ['UKM-1000-0001', 'UK', 'motor'],
    ['UKM-1000-0002', 'UK', 'motor'],
    ['KFZ-5096-000001', 'DE', 'motor'],
    ['AUTO-2109-000001', 'FR', 'motor'],
  ];
  const out = known.map((k) => [...k]);
  for (let i = 0; out.length < n; i++)
    out.push(i % 5 === 4 ? [`MUT-${100000 + i}`, 'FR', 'health'] : [`UKM-9999-${String(i).padStart(4, '0')}`, 'UK', 'motor']);
  return out;
}

function sheet(key: string, data: string[][]): Harness {
  const h = loadAddon(http, { connector: conn.url });
  h.fns.saveSettings({ url: CONNECTOR, key });
  const s = h.ss.active;
  s.getRange(1, 1, 1, 3).setValues([['Policy number', 'Country', 'Insurance type']]);
  s.getRange(2, 1, data.length, 3).setValues(data);
  return h;
}

function verify(h: Harness, recheck?: { mode?: string; maxAgeDays?: number }) {
  const posts0 = h.stats.log.filter((l) => l.method === 'POST').length;
  const req0 = h.stats.requests;
  let p = h.fns.startRowsRun(h.fns.detectRowMapping().mapping, recheck ? { recheck } : {});
  for (let i = 0; i < 50 && !p.finished; i++) p = h.fns.pollRowsRun(p.runId);
  expect(p.finished).toBe(true);
  return { p, posts: h.stats.log.filter((l) => l.method === 'POST').length - posts0, calls: h.stats.requests - req0 };
}

describe('delta re-checks', () => {
  it('a re-run sends only changed, failed and old rows, and says how many it skipped', async () => {
    const h = sheet(conn.keys.live!, rows(250));
    const s = h.ss.active;
    const b0 = await balance(conn.keys.live!);
    const first = verify(h);
    expect(first.p).toMatchObject({ total: 250, done: 250, skipped: 0 });
    expect(first.posts).toBe(3);
    const spent = b0 - (await balance(conn.keys.live!));
    expect(first.p.summary.creditsSpent).toBe(spent);
    expect(s.isColumnHiddenByUser(9)).toBe(true);
    expect(String(s.get(2, 9))).toMatch(/^h1:[0-9a-z]+$/);

    // Nothing changed: no batch, nothing paid, one call for the balance.
    const b1 = await balance(conn.keys.live!);
    const again = verify(h);
    expect(again.p).toMatchObject({ total: 0, skipped: 250, finished: true });
    expect(again.posts).toBe(0);
    expect(again.calls).toBe(1);
    expect(again.p.message).toBe('250 rows unchanged since the last check: skipped, no credits spent.');
    expect(await balance(conn.keys.live!)).toBe(b1);

    // Three edited inputs, one failed result, and two rows swapped (their hashes move with them): four rows sent.
    const hash20 = s.get(20, 9);
    s.set(10, 1, 'UKM-9999-7777');
    s.set(20, 2, 'DE');
    s.set(20, 1, 'KFZ-5096-000001');
    s.set(30, 3, 'travel');
    s.set(40, 4, 'Error: registry timeout');
    const r50 = s.row(50);
    const r51 = s.row(51);
    s.getRange(50, 1, 1, r51.length).setValues([r51]);
    s.getRange(51, 1, 1, r50.length).setValues([r50]);
    // Retyping "UK" as " uk " is no change (the hash is of the normalised inputs).
    expect(s.get(61, 2)).toBe('UK');
    s.set(61, 2, ' uk ');
    const delta = verify(h);
    expect(delta.p).toMatchObject({ total: 4, skipped: 246 });
    expect(delta.posts).toBe(1);
    expect(s.get(20, 9)).not.toBe(hash20);
    expect(s.get(40, 4)).toMatch(/^(verified|unverified|inconclusive)$/);

    // Older than the chosen age: sent again; "all" sends everything.
    h.world.clock.advance(3 * 24 * 3600_000);
    expect(verify(h, { maxAgeDays: 2 }).p).toMatchObject({ total: 250, skipped: 0 });
    expect(verify(h, { maxAgeDays: 5 }).p).toMatchObject({ total: 0, skipped: 250 });
    expect(verify(h, { mode: 'all' }).p).toMatchObject({ total: 250, skipped: 0 });
    expect(() => h.fns.startRowsRun(h.fns.detectRowMapping().mapping, { recheck: { mode: 'some' } })).toThrow(
      /Re-check must be one of changed, all/,
    );
    expect(() => h.fns.startRowsRun(h.fns.detectRowMapping().mapping, { recheck: { maxAgeDays: -1 } })).toThrow(/from 0 to 3650/);
  });

  it('results a sandbox key got are checked again with a live key', () => {
    const h = sheet(conn.keys.sandbox!, rows(20));
    expect(verify(h).p).toMatchObject({ total: 20 });
    expect(verify(h).p).toMatchObject({ total: 0, skipped: 20 });
    h.fns.saveSettings({ url: CONNECTOR, key: conn.keys.live });
    expect(verify(h).p).toMatchObject({ total: 20, skipped: 0 });
  });
});

describe('results summary, colours and notes', () => {
  it('counts by status, credits, the rows needing a look with a link each, and a note on the status header', async () => {
    const h = sheet(conn.keys.live!, rows(30));
    const s = h.ss.active;
    const { p } = verify(h);
    const col = (c: number) => Array.from({ length: 30 }, (_, i) => String(s.get(i + 2, c)));
    const status = col(4);
    const count = (x: string) => status.filter((v) => v === x).length;
    expect(p.summary.counts).toEqual({
      verified: count('verified'),
      unverified: count('unverified'),
      inconclusive: count('inconclusive'),
      error: 0,
    });
    expect(p.summary.counts.verified).toBeGreaterThan(0);
    expect(p.summary.counts.unverified).toBeGreaterThan(0);
    expect(p.summary.counts.inconclusive).toBeGreaterThan(0);
    expect(p.summary.creditsLeft).toBe(await balance(conn.keys.live!));
    const look = status.map((v, i) => (v !== 'verified' || /expired|sanctioned/.test(String(s.get(i + 2, 7))) ? i + 2 : 0)).filter(Boolean);
    expect(p.summary.needsLook.map((r: { row: number }) => r.row)).toEqual(look);
    expect(p.summary.needsLookTotal).toBe(look.length);
    expect(p.summary.needsLook[0]).toMatchObject({ policy: s.get(look[0]!, 1), status: s.get(look[0]!, 4) });
    expect(s.note(1, 4)).toBe(p.summary.headerNote);
    expect(s.note(1, 4)).toMatch(
      new RegExp(
        `${count('verified')} verified, ${count('unverified')} unverified, ${count('inconclusive')} inconclusive, 0 errors\\n30 checked, 0 unchanged and skipped\\nCredits spent ${p.summary.creditsSpent}, left ${p.summary.creditsLeft}`,
      ),
    );

    h.fns.jumpToRow('Sheet1', look[1]);
    expect(h.ss.activeRange).toMatchObject({ row: look[1], col: 1, nr: 1 });
    expect(() => h.fns.jumpToRow('Nope', 3)).toThrow('The sheet "Nope" is gone.');
  });

  it("status colours: four rules added once, the user's rules kept, re-runs add none", () => {
    const h = sheet(conn.keys.sandbox!, rows(12));
    const s = h.ss.active;
    // The user's own rule on another column, made as a person would in Format > Conditional formatting.
    s.conditionalFormatRules.push(
      new FakeConditionalFormatRule(
        h.world.guard,
        { type: 'TEXT_EQUAL_TO', values: ['UK'] },
        { background: '#00f', fontColor: null, bold: null },
        [s.getRange(2, 2, 20, 1)],
      ),
    );
    verify(h);
    const texts = () => s.conditionalFormatRules.map((r) => r.criteria.values[0]);
    expect(texts()).toEqual(['UK', 'verified', 'unverified', 'inconclusive', 'Error:']);
    expect(s.conditionalFormatRules[1]!.ranges[0]).toMatchObject({ row: 2, col: 4, nr: 999, nc: 1 });
    expect(s.conditionalFormatRules[2]!.format).toMatchObject({ background: '#f4cccc' });
    verify(h, { mode: 'all' });
    verify(h);
    expect(texts()).toEqual(['UK', 'verified', 'unverified', 'inconclusive', 'Error:']);
    // Painting cells is not how it's done: no background was set on any cell (the stand-in has no setBackground at all).
  });

  it("notes on unverified and inconclusive rows say why from checks[], in the user's language; a verified row's note is cleared", () => {
    const data = rows(10);
    const h = sheet(conn.keys.sandbox!, data);
    const s = h.ss.active;
    verify(h);
    const rowOf = (st: string) => Array.from({ length: 10 }, (_, i) => i + 2).find((r) => s.get(r, 4) === st)!;
    const [v, u, inc] = [rowOf('verified'), rowOf('unverified'), rowOf('inconclusive')];
    expect(s.note(v, 4)).toBe('');
    expect(s.note(u, 4)).toMatch(/^Covercheck: not verified\. Why:\n• (Policy registry|FCA register|Number format): (failed|warning)\. .+/);
    expect(s.note(u, 4)).toMatch(/\nConfidence: [\d.]+$/);
    expect(s.note(inc, 4)).toMatch(/^Covercheck: inconclusive\. Why:\n/);
    expect(s.note(inc, 4)).toMatch(/Warnings: .*no registry covers this/);

    // A German user re-checks: German frame; the unverified row, now edited to a known policy, loses its note.
    const de = h.as('bob@example.com');
    de.world.user('bob@example.com').locale = 'de';
    de.fns.saveSettings({ url: CONNECTOR, key: conn.keys.sandbox });
    s.getRange(u, 1, 1, 3).setValues([['UKM-1000-0001', 'UK', 'motor']]);
    let p = de.fns.startRowsRun(de.fns.detectRowMapping().mapping, { recheck: { mode: 'all' } });
    while (!p.finished) p = de.fns.pollRowsRun(p.runId);
    expect(s.get(u, 4)).toBe('verified');
    expect(s.note(u, 4)).toBe('');
    expect(s.note(inc, 4)).toMatch(/^Covercheck: nicht eindeutig\. Warum:\n/);
    expect(s.note(inc, 4)).toMatch(/Hinweise: .*kein Register deckt dies ab/);
    expect(s.note(inc, 4)).toMatch(/\nKonfidenz: /);

    // No user locale: the spreadsheet's (fr_FR) decides.
    de.world.user('bob@example.com').locale = '';
    h.ss.locale = 'fr_FR';
    p = de.fns.startRowsRun(de.fns.detectRowMapping().mapping, { recheck: { mode: 'all' } });
    while (!p.finished) p = de.fns.pollRowsRun(p.runId);
    expect(s.note(inc, 4)).toMatch(/^Covercheck : non concluant\. Pourquoi :\n/);
  });
});

describe('insurer register links', () => {
  // Live keys see real rows only: this connector holds an operator's registry extract.
  let reg: ChildConnector;
  beforeAll(async () => {
    reg = await startConnectorChild({ operatorRegistry: true, keys: { live: { mode: 'live', credits: 100 } } });
  }, 60_000);
  afterAll(async () => reg?.stop());

  const fca = (frn: string) => `https://register.fca.org.uk/s/search?q=${frn}&type=Companies`;

  it("a real UK insurer's cell links to its FCA register page, one rich text call per block; an insurer without a page and a row without one stay plain text; a re-run drops a link that no longer applies", async () => {
    const direct = (await (
      await fetch(`${reg.url}/api/v1/verify`, {
        method: 'POST',
        headers: { authorization: `Bearer ${reg.keys.live}`, 'content-type': 'application/json' },
        body: JSON.stringify(OPERATOR_UK_MOTOR),
      })
    ).json()) as { insurer: { name: string; register_url: string | null } };
    expect(direct.insurer).toMatchObject({ name: 'U K Insurance Limited', register_url: fca('202810') });

    const h = loadAddon(http, { connector: reg.url });
    h.fns.saveSettings({ url: CONNECTOR, key: reg.keys.live });
    const s = h.ss.active;
    s.getRange(1, 1, 1, 3).setValues([['Policy number', 'Country', 'Insurance type']]);
    s.getRange(2, 1, 4, 3).setValues([
      [OPERATOR_UK_MOTOR.policy_number, 'UK', 'motor'], // U K Insurance Limited, FRN 202810
      ['AUTO-2109-900001', 'FR', 'motor'], // AXA France IARD: an ACAM code, no public page to link
      ['UKO-1000-0004', 'UK', 'motor'], // Liverpool Victoria Insurance Company Limited, FRN 202965
      ['UKO-9999-0001', 'UK', 'motor'], // unknown: no insurer
    ]);
    const rich0 = h.ss.richTextWrites;
    expect(verify(h).p).toMatchObject({ total: 4, done: 4, errors: 0 });
    expect(s.row(1)[5]).toBe('Covercheck insurer');
    const insurers = () =>
      s
        .getRange(2, 6, 4, 1)
        .getRichTextValues()
        .map(([v]) => [v!.getText(), v!.getLinkUrl()]);
    expect(insurers()).toEqual([
      [direct.insurer.name, direct.insurer.register_url],
      ['AXA FRANCE I.A.R.D.', null],
      ['Liverpool Victoria Insurance Company Limited', fca('202965')],
      ['', null],
    ]);
    expect(h.ss.richTextWrites - rich0).toBe(1);

    // Row 2 becomes the French policy: only it is sent again, its block has no link, so no rich
    // text call; the value written over the cell drops its old link. Row 4 keeps its link.
    s.getRange(2, 1, 1, 3).setValues([['AUTO-2109-900001', 'FR', 'motor']]);
    const rich1 = h.ss.richTextWrites;
    expect(verify(h).p).toMatchObject({ total: 1, skipped: 3 });
    expect(h.ss.richTextWrites).toBe(rich1);
    expect(insurers().slice(0, 3)).toEqual([
      ['AXA FRANCE I.A.R.D.', null],
      ['AXA FRANCE I.A.R.D.', null],
      ['Liverpool Victoria Insurance Company Limited', fca('202965')],
    ]);
  });
});

describe("run history of the add-on's dataset refreshes", () => {
  const SLUG = 'uk-rpi-vehicles-tax-insurance-yoy';
  it('keeps the last 30 runs per schedule in document properties, under 9 KB a value, with failures and who ran them; every editor sees them; removal forgets them', () => {
    const h = loadAddon(http, { connector: conn.url });
    h.fns.saveSettings({ url: CONNECTOR, key: conn.keys.live });
    h.fns.importDataset({ slug: SLUG, sheetName: 'Motor RPI', limit: 12, schedule: 'hourly' });
    let v = h.fns.listSchedules().schedules[0];
    expect(v.runs).toMatchObject([{ ok: true, rows: 12, error: null, by: 'manual' }]);
    h.advance(3 * 3600_000);
    h.world.offline = true;
    h.advance(3600_000);
    h.world.offline = false;
    v = h.fns.listSchedules().schedules[0];
    expect(v.runs.map((r: { ok: boolean; by: string }) => [r.ok, r.by])).toEqual([
      [false, 'trigger'],
      [true, 'trigger'],
      [true, 'trigger'],
      [true, 'trigger'],
      [true, 'manual'],
    ]);
    expect(v.runs[0].error).toMatch(/^Connector unreachable/);
    expect(v.runs[1]).toMatchObject({ rows: 12, error: null });
    expect(Date.parse(v.runs[0].at) - Date.parse(v.runs[1].at)).toBe(3600_000);
    h.fns.refreshScheduleNow(v.id);
    expect(h.fns.listSchedules().schedules[0].runs[0]).toMatchObject({ ok: true, by: 'manual' });

    // Many failing runs with long errors (by hand: the trigger stops after 3 failures in a row): 30 kept, the value within the 9 KB limit.
    h.world.offline = true;
    for (let i = 0; i < 40; i++) h.fns.refreshScheduleNow(v.id);
    h.world.offline = false;
    const runs = h.as('bob@example.com').fns.listSchedules().schedules[0].runs;
    expect(runs).toHaveLength(30);
    const key = `covercheck.runs.${v.id}`;
    expect(Buffer.byteLength(h.docProps.data[key]!)).toBeLessThanOrEqual(8 * 1024);
    h.fns.removeSchedule(v.id);
    expect(h.docProps.data[key]).toBeUndefined();
  });
});

describe("output modes of the add-on's dataset imports and refreshes", () => {
  const SLUG = 'uk-rpi-vehicles-tax-insurance-yoy';
  const series = async (n: number) =>
    ((await get(`/api/v1/datasets/${SLUG}/series?limit=${n}`)) as { points: { date: string; value: number }[] }).points;

  function imported(mode: string, limit: number) {
    const h = loadAddon(http, { connector: conn.url });
    h.fns.saveSettings({ url: CONNECTOR, key: conn.keys.live });
    const r = h.fns.importDataset({ slug: SLUG, sheetName: 'RPI', limit, schedule: 'daily', mode });
    const sheet = h.ss.sheets.find((x) => x.name === 'RPI')!;
    // The user's own column beside the data.
    for (let row = 1; row <= limit + 1; row++) sheet.set(row, 3, row === 1 ? 'My notes' : `note ${row}`);
    return { h, sheet, id: r.schedule.id as string };
  }
  /** A:B as shown: Sheets typed the dates and values written as text (getValues has Dates and numbers). */
  const ab = (sheet: { getRange: (...a: number[]) => { getDisplayValues(): string[][] } }, n: number) =>
    sheet.getRange(2, 1, n, 2).getDisplayValues();
  const shown = (pts: { date: string; value: number }[]) => pts.map((p) => [p.date, String(p.value)]);

  it("overwrite: A:B replaced (old rows beyond the new points blanked), the user's column kept", async () => {
    const { h, sheet, id } = imported('overwrite', 24);
    expect(h.fns.listSchedules().schedules[0]).toMatchObject({ mode: 'overwrite' });
    const pts = await series(24);
    // Rows an earlier, longer import left.
    sheet.getRange(26, 1, 3, 2).setValues([
      ['1999-01-01', 1],
      ['1999-02-01', 2],
      ['1999-03-01', 3],
    ]);
    sheet.set(2, 2, 999);
    h.fns.refreshScheduleNow(id);
    expect(ab(sheet, 24)).toEqual(shown(pts));
    expect(ab(sheet, 27).slice(24)).toEqual([
      ['', ''],
      ['', ''],
      ['', ''],
    ]);
    expect(sheet.get(2, 3)).toBe('note 2');
    expect(sheet.get(25, 3)).toBe('note 25');
    expect(h.fns.listSchedules().schedules[0].runs[0]).toMatchObject({ ok: true, rows: 24 });
  });

  it('append: only dates after the latest are added, below the data; nothing else moves', async () => {
    const { h, sheet, id } = imported('append', 12);
    const pts = await series(12);
    // The sheet as an import three points ago left it; a stale value stays as it is in append mode.
    sheet.getRange(11, 1, 3, 2).setValues([
      ['', ''],
      ['', ''],
      ['', ''],
    ]);
    sheet.set(2, 2, 999);
    h.fns.refreshScheduleNow(id);
    expect(ab(sheet, 12)).toEqual([[pts[0]!.date, '999'], ...shown(pts.slice(1))]);
    expect(h.fns.listSchedules().schedules[0].runs[0]).toMatchObject({ ok: true, rows: 3 });
    h.fns.refreshScheduleNow(id);
    expect(h.fns.listSchedules().schedules[0].runs[0]).toMatchObject({ ok: true, rows: 0 });
    expect(sheet.display(13, 1)).toBe(pts[11]!.date);
    expect(sheet.get(14, 1)).toBe('');
    expect(sheet.get(12, 3)).toBe('note 12');
  });

  it("merge on the date: changed values updated in place, missing dates added, the user's column beside each row unchanged", async () => {
    const { h, sheet, id } = imported('merge', 12);
    const pts = await series(12);
    sheet.set(5, 2, 999);
    sheet.getRange(12, 1, 2, 2).setValues([
      ['', ''],
      ['', ''],
    ]);
    h.fns.refreshScheduleNow(id);
    expect(ab(sheet, 12)).toEqual(shown(pts));
    expect(sheet.get(5, 3)).toBe('note 5');
    expect(h.fns.listSchedules().schedules[0].runs[0]).toMatchObject({ ok: true, rows: 3 });
    expect(() => h.fns.importDataset({ slug: SLUG, sheetName: 'X', schedule: 'daily', mode: 'upsert' })).toThrow(
      'Output mode must be one of overwrite, append, merge.',
    );
  });

  it('east of UTC (a Berlin spreadsheet, the script in UTC): append and merge find the dates already in column A, as Sheets typed them', async () => {
    const pts = await series(6);
    for (const mode of ['append', 'merge']) {
      const h = loadAddon(http, { connector: conn.url });
      h.ss.timeZone = 'Europe/Berlin';
      h.fns.saveSettings({ url: CONNECTOR, key: conn.keys.live });
      const id = h.fns.importDataset({ slug: SLUG, sheetName: 'RPI', limit: 6, schedule: 'daily', mode }).schedule.id as string;
      const sheet = h.ss.sheets.find((x) => x.name === 'RPI')!;
      // Sheets typed the dates: Dates at Berlin midnight, shown as written.
      expect(sheet.get(2, 1)).toBeInstanceOf(Date);
      h.fns.refreshScheduleNow(id);
      h.fns.refreshScheduleNow(id);
      expect(sheet.lastRow(), mode).toBe(7);
      expect(ab(sheet, 6)).toEqual(shown(pts));
      expect(h.fns.listSchedules().schedules[0].runs[0], mode).toMatchObject({ ok: true, rows: 0 });
    }
  });
});

describe("failure alerts and auto-pause of the add-on's refreshes", () => {
  it('three failed hourly refreshes in a row pause the schedule with the reason; the trigger then leaves it alone; Resume refreshes it and clears the count', () => {
    const h = loadAddon(http, { connector: conn.url });
    h.fns.saveSettings({ url: CONNECTOR, key: conn.keys.live });
    h.fns.importDataset({ slug: 'uk-rpi-vehicles-tax-insurance-yoy', sheetName: 'RPI', limit: 6, schedule: 'hourly' });
    h.world.offline = true;
    h.advance(2 * 3600_000);
    let v = h.fns.listSchedules().schedules[0];
    expect(v).toMatchObject({ failures: 2, paused: null });
    h.advance(3600_000);
    v = h.fns.listSchedules().schedules[0];
    expect(v.failures).toBe(3);
    expect(v.paused).toMatch(
      /^Paused after 3 failed refreshes in a row\. The last: Connector unreachable at https:\/\/covercheck\.example\.com/,
    );
    // Paused: further hours run no refresh (the history stays at 4 runs: the import and three failures).
    h.world.offline = false;
    h.advance(5 * 3600_000);
    v = h.as('bob@example.com').fns.listSchedules().schedules[0];
    expect(v.runs).toHaveLength(4);
    expect(v.paused).not.toBeNull();
    expect(h.triggers).toHaveLength(1);
    // Any editor may resume it: refreshed at once (with that editor's connector), count cleared; the trigger takes it up again.
    h.as('bob@example.com').fns.saveSettings({ url: CONNECTOR });
    v = h.as('bob@example.com').fns.resumeSchedule(v.id).schedules[0];
    expect(v).toMatchObject({ failures: 0, paused: null });
    expect(v.runs[0]).toMatchObject({ ok: true, by: 'manual' });
    h.advance(3600_000);
    expect(h.fns.listSchedules().schedules[0].runs[0]).toMatchObject({ ok: true, by: 'trigger' });
  });
});
