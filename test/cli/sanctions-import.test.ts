import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { SanctionsIndex } from '../../connector/src/sanctions/index.js';
import { openStore } from '../../connector/src/store/index.js';
import type { SanctionRecord } from '../../connector/src/store/types.js';
import { tempDbPath } from '../helpers/server.js';

const run = promisify(execFile);
const db = tempDbPath('sanctions-cli');
const cli = (...args: string[]) =>
  run(process.execPath, ['--import', 'tsx', 'connector/src/cli/sanctions-import.ts', ...args], { cwd: process.cwd() });
const OFSI_CSV = 'test/fixtures/sanctions/ofsi-conlist.csv';
const EU_XML = 'test/fixtures/sanctions/eu-fsf.xml';

async function storedRows(): Promise<SanctionRecord[]> {
  const store = await openStore({ databasePath: db });
  try {
    return await store.sanctions.all();
  } finally {
    await store.close();
  }
}

const countByList = (rows: SanctionRecord[]): Record<string, number> =>
  rows.reduce<Record<string, number>>((acc, r) => ({ ...acc, [r.list]: (acc[r.list] ?? 0) + 1 }), {});

afterAll(() => fs.rmSync(path.dirname(db), { recursive: true, force: true }));

describe('npm run sanctions:import', () => {
  it('loads the OFSI CSV into a fresh store, entities only, and the index finds the listed insurer', async () => {
    const { stdout } = await cli('--format', 'ofsi', OFSI_CSV, '--db', db);
    expect(JSON.parse(stdout)).toEqual({
      format: 'ofsi',
      file: OFSI_CSV,
      kind: 'OFSI consolidated list CSV',
      list: 'uk-ofsi',
      published: '15/05/2026',
      entities: 3,
      names: 6,
      skipped: { Individual: 1, Ship: 1 },
      stored: 6,
    });
    const index = new SanctionsIndex(await storedRows());
    expect(index.find('UK', ['Example Sanctioned Insurance Company Ltd'])).toEqual({
      name: 'EXAMPLE SANCTIONED INSURANCE COMPANY LIMITED',
      country: null,
      list: 'uk-ofsi',
      reference: '90001',
      demo: false,
    });
    expect(index.find('DE', ['ESIC Assurance'])?.reference).toBe('90001');
    expect(index.find('UK', ['Testperson Alpha FICTIONAL'])).toBeNull();
  });

  it('loads a second list beside the first, and loading a list again replaces it', async () => {
    const eu = JSON.parse((await cli('--format', 'eu', EU_XML, '--db', db)).stdout);
    expect(eu).toMatchObject({
      kind: 'EU financial sanctions list XML',
      list: 'eu-fsf',
      entities: 3,
      names: 6,
      skipped: { person: 1 },
      stored: 6,
    });
    await cli('--format', 'ofsi', OFSI_CSV, '--db', db);
    const rows = await storedRows();
    expect(countByList(rows)).toEqual({ 'eu-fsf': 6, 'uk-ofsi': 6 });
    expect(new SanctionsIndex(rows).find('FR', ['ESIC Versicherung'])).toMatchObject({ list: 'eu-fsf', reference: 'EU.9001.12' });
  });

  it('a file that is not the format exits 2 naming the file kind, and leaves the store as it was', async () => {
    await expect(cli('--format', 'eu', OFSI_CSV, '--db', db)).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining(
        'EU financial sanctions list CSV: no header line with the columns "Entity_LogicalId", "NameAlias_WholeName"',
      ),
    });
    expect(countByList(await storedRows())).toEqual({ 'eu-fsf': 6, 'uk-ofsi': 6 });
  });

  it('bad arguments exit 2 with the usage; --help prints it and exits 0', async () => {
    await expect(cli(OFSI_CSV, '--db', db)).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('--format is required') });
    await expect(cli('--format', 'ofac', OFSI_CSV, '--db', db)).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('unknown --format "ofac"'),
    });
    await expect(cli('--format', 'ofsi', 'no/such/file.csv', '--db', db)).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('cannot import no/such/file.csv'),
    });
    expect((await cli('--help')).stdout).toContain('npm run sanctions:import -- --format ofsi|uksl|eu FILE');
  });
});
