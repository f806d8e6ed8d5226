/**
 * Countries and insurance types as staff type them into a sheet ("Deutschland", "Kfz-Haftpflicht",
 * "Royaume-Uni"), through the built add-on: =VERIFYPOLICY and the rows sidebar read them with the
 * contract's parsePolicyInput, so they send the codes, and an unknown word is a readable cell error.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAddonRig, type AddonRig } from '../helpers/addon-rig.js';
import { CONNECTOR, loadAddon, type SyncHttp, type ChildConnector, type Harness } from './harness.js';

let rig: AddonRig<'conn'>;
let conn: ChildConnector;
let http: SyncHttp;

beforeAll(async () => {
  rig = await startAddonRig({ conn: { keys: { sandbox: { mode: 'test' } } } });
  ({ http, conn } = rig);
}, 60_000);
afterAll(async () => {
  await rig?.stop();
});

function granted(): Harness {
  const h = loadAddon(http, { connector: conn.url });
  h.fns.saveSettings({ url: CONNECTOR, key: conn.keys.sandbox });
  h.fns.grantKeyToSpreadsheet(true);
  return h;
}

describe('countries and insurance types in the words staff type', () => {
  it('=VERIFYPOLICY: Deutschland and Kfz are DE motor; an unknown word is a cell error naming what is accepted, sent nowhere', () => {
    const h = granted();
    expect(h.fns.VERIFYPOLICY('KFZ-5096-000001', 'Deutschland', 'Kfz')).toBe('verified');
    expect(
      h.fns.VERIFYPOLICY([['KFZ-5096-000001'], ['UKM-1000-0001']], [['Allemagne'], ['Royaume-Uni']], [['Kfz-Haftpflicht'], ['car']]),
    ).toEqual([['verified'], ['verified']]);
    const calls = h.stats.requests;
    expect(() => h.fns.VERIFYPOLICY('KFZ-5096-000001', 'Spanien', 'Kfz')).toThrow(
      'Unsupported country: Spanien. Supported: UK, DE, FR (also names such as United Kingdom, Deutschland, France).',
    );
    expect(() => h.fns.VERIFYPOLICY('KFZ-5096-000001', 'DE', 'Hausrat')).toThrow(
      /^Unsupported insurance type: Hausrat\. Supported: motor, travel, health \(also words such as/,
    );
    expect(h.stats.requests).toBe(calls);
  });

  it("rows sidebar: German and French words in the cells are verified as their codes; an unknown one is the row's error", () => {
    const h = loadAddon(http, { connector: conn.url });
    h.fns.saveSettings({ url: CONNECTOR, key: conn.keys.sandbox });
    const s = h.ss.active;
    const rows = [
      ['KFZ-5096-000001', 'Deutschland', 'Kfz-Haftpflicht'],
      ['AUTO-2109-000001', 'France', 'assurance auto'],
      ['UKM-1000-0001', 'Spanien', 'Auto'],
    ];
    s.getRange(1, 1, 1, 3).setValues([['Vertragsnummer', 'Land', 'Sparte']]);
    s.getRange(2, 1, rows.length, 3).setValues(rows);
    let p = h.fns.startRowsRun(h.fns.detectRowMapping().mapping);
    for (let i = 0; i < 30 && !p.finished; i++) p = h.fns.pollRowsRun(p.runId);
    expect(p).toMatchObject({ total: 3, errors: 1, finished: true });
    expect([s.get(2, 4), s.get(3, 4)]).toEqual(['verified', 'verified']);
    expect(s.get(4, 4)).toMatch(/^Error: Unsupported country: Spanien\. Supported: UK, DE, FR \(also names such as/);
  });
});

describe('policy numbers Sheets has typed (a number loses leading zeros and digits past 15; date-like text becomes a Date)', () => {
  const PLAIN = /format the policy number column as plain text \(Format > Number > Plain text\) and type the numbers again\.$/;
  /** The cells as typed, and what a formula over them gets: their values ("Custom Functions in Google Sheets", data types). */
  function typed(h: Harness, cells: string[]): unknown[] {
    const s = h.ss.active;
    s.getRange(1, 1, cells.length, 1).setValues(cells.map((c) => [c]));
    return s
      .getRange(1, 1, cells.length, 1)
      .getValues()
      .map((r) => r[0]);
  }

  it('=VERIFYPOLICY: a number that cannot be the printed policy number, or a date, is a cell error asking for plain text, sent nowhere; a number Sheets holds exactly is verified', () => {
    const h = granted();
    const [long, date, exact] = typed(h, ['1234567890123456789', '2024-01-15', '608478190']);
    expect([typeof long, date instanceof Date, exact]).toEqual(['number', true, 608478190]);
    const calls = h.stats.requests;
    expect(() => h.fns.VERIFYPOLICY(long, 'UK', 'motor')).toThrow(
      /^Sheets holds this policy number as a number \(1234567890123456800\), which is not the number as printed: /,
    );
    expect(() => h.fns.VERIFYPOLICY(long, 'UK', 'motor')).toThrow(PLAIN);
    expect(() => h.fns.VERIFYPOLICY(date, 'UK', 'motor')).toThrow(
      /^Sheets turned this policy number into a date: format the policy number column as plain text/,
    );
    expect(() => h.fns.VERIFYPOLICY(0.5, 'UK', 'motor')).toThrow(PLAIN);
    const out = h.fns.VERIFYPOLICY([[long], [date], ['UKM-1000-0001']], [['UK'], ['UK'], ['UK']], [['motor'], ['motor'], ['motor']]);
    expect(out[0][0]).toMatch(/^Error: Sheets holds this policy number as a number/);
    expect(out[1][0]).toMatch(/^Error: Sheets turned this policy number into a date/);
    expect(out[2]).toEqual(['verified']);
    // Only the policy typed as text went out (one policy: one POST /verify).
    expect(h.stats.log.slice(-1).map((l) => `${l.method} ${new URL(l.url).pathname}`)).toEqual(['POST /api/v1/verify']);
    expect(h.stats.requests - calls).toBe(1);
    // Digits Sheets holds exactly go as printed.
    expect(h.fns.VERIFYPOLICY(exact, 'UK', 'motor')).toMatch(/^(verified|unverified|inconclusive)$/);
  });

  it("rows sidebar: policy numbers are read as displayed; a number past 15 digits or a date is the row's error asking for plain text, never sent; a plain-text column works", () => {
    const h = loadAddon(http, { connector: conn.url });
    h.fns.saveSettings({ url: CONNECTOR, key: conn.keys.sandbox });
    const s = h.ss.active;
    s.getRange(1, 1, 1, 3).setValues([['Policy number', 'Country', 'Insurance type']]);
    s.getRange(2, 1, 4, 3).setValues([
      ['1234567890123456789', 'UK', 'motor'],
      ['2024-01-15', 'UK', 'motor'],
      ['UKM-1000-0001', 'UK', 'motor'],
      ['608478190', 'UK', 'motor'],
    ]);
    const run = () => {
      let p = h.fns.startRowsRun(h.fns.detectRowMapping().mapping, { recheck: { mode: 'all' } });
      for (let i = 0; i < 30 && !p.finished; i++) p = h.fns.pollRowsRun(p.runId);
      return p;
    };
    const posts0 = h.stats.log.filter((l) => l.method === 'POST').length;
    expect(run()).toMatchObject({ total: 4, errors: 2, finished: true });
    expect(s.get(2, 4)).toMatch(
      /^Error: Sheets holds this policy number as a number \(1\.23457E\+18\), which is not the number as printed: /,
    );
    expect(s.get(2, 4)).toMatch(PLAIN);
    expect(s.get(3, 4)).toMatch(
      /^Error: Sheets turned this policy number into a date \(2024-01-15\): format the policy number column as plain text/,
    );
    expect(s.get(4, 4)).toBe('verified');
    expect(s.get(5, 4)).toMatch(/^(verified|unverified|inconclusive)$/);
    expect(h.stats.log.filter((l) => l.method === 'POST').length - posts0).toBe(1);

    // The user follows the advice: the column as plain text, the numbers typed again.
    s.getRange(2, 1, 4, 1).setNumberFormat('@');
    s.getRange(2, 1, 2, 1).setValues([['1234567890123456789'], ['2024-01-15']]);
    expect([s.get(2, 1), s.get(3, 1)]).toEqual(['1234567890123456789', '2024-01-15']);
    expect(run()).toMatchObject({ total: 4, errors: 0 });
    expect(s.get(2, 4)).toMatch(/^(verified|unverified|inconclusive)$/);
  });
});
