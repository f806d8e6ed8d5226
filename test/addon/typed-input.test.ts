/**
 * Countries and insurance types as staff type them into a sheet ("Deutschland", "Kfz-Haftpflicht",
 * "Royaume-Uni"), through the built add-on: =VERIFYPOLICY and the rows sidebar read them with the
 * contract's parsePolicyInput, so they send the codes, and an unknown word is a readable cell error.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAddon, CONNECTOR, loadAddon, startConnectorChild, SyncHttp, type ChildConnector, type Harness } from './harness.js';

let conn: ChildConnector;
let http: SyncHttp;

beforeAll(async () => {
  buildAddon();
  http = new SyncHttp();
  conn = await startConnectorChild({ keys: { sandbox: { mode: 'test' } } });
}, 60_000);
afterAll(async () => {
  await conn?.stop();
  await http?.close();
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
    expect(h.fns.VERIFYPOLICY([['KFZ-5096-000001'], ['UKM-1000-0001']], [['Allemagne'], ['Royaume-Uni']], [['Kfz-Haftpflicht'], ['car']])).toEqual([['verified'], ['verified']]);
    const calls = h.stats.requests;
    expect(() => h.fns.VERIFYPOLICY('KFZ-5096-000001', 'Spanien', 'Kfz')).toThrow('Unsupported country: Spanien. Supported: UK, DE, FR (also names such as United Kingdom, Deutschland, France).');
    expect(() => h.fns.VERIFYPOLICY('KFZ-5096-000001', 'DE', 'Hausrat')).toThrow(/^Unsupported insurance type: Hausrat\. Supported: motor, travel, health \(also words such as/);
    expect(h.stats.requests).toBe(calls);
  });

  it('rows sidebar: German and French words in the cells are verified as their codes; an unknown one is the row\'s error', () => {
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
