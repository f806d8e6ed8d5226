import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../connector/src/store/index.js';
import { tempDbPath } from '../helpers/server.js';

const run = promisify(execFile);
const db = tempDbPath('datasets-cli');
const dir = path.dirname(db);
const cli = (...args: string[]) => run(process.execPath, ['--import', 'tsx', 'connector/src/cli/datasets.ts', ...args, '--db', db]);

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('npm run datasets:import', () => {
  it('loads a new dataset, then merges and replaces points', async () => {
    const file = path.join(dir, 'claims.csv');
    fs.writeFileSync(file, 'month,claims\n2026-01,10\n2026-02,12\n');
    const first = await cli(
      'import',
      file,
      '--slug',
      'acme-claims',
      '--cadence',
      'monthly',
      '--title',
      'ACME claims',
      '--category',
      'claims',
      '--source',
      'ACME',
      '--source-url',
      'https://acme.example/claims',
      '--date-column',
      'month',
      '--value-column',
      'claims',
    );
    expect(JSON.parse(first.stdout)).toEqual({
      slug: 'acme-claims',
      created: true,
      points_read: 2,
      point_count: 2,
      first_date: '2026-01-01',
      last_date: '2026-02-01',
    });
    fs.writeFileSync(file, 'month,claims\n2026-02,13\n2026-03,15\n');
    const merged = await cli(
      'import',
      file,
      '--slug',
      'acme-claims',
      '--cadence',
      'monthly',
      '--date-column',
      'month',
      '--value-column',
      'claims',
      '--merge',
    );
    expect(JSON.parse(merged.stdout)).toMatchObject({ created: false, point_count: 3, last_date: '2026-03-01' });
    const store = await openStore({ databasePath: db });
    expect(await store.datasets.series('acme-claims', 10, 'earliest')).toEqual([
      { date: '2026-01-01', value: 10 },
      { date: '2026-02-01', value: 13 },
      { date: '2026-03-01', value: 15 },
    ]);
    expect((await store.datasets.get('acme-claims'))!.title).toBe('ACME claims');
    await store.close();
    const replaced = await cli(
      'import',
      file,
      '--slug',
      'acme-claims',
      '--cadence',
      'monthly',
      '--date-column',
      'month',
      '--value-column',
      'claims',
    );
    expect(JSON.parse(replaced.stdout)).toMatchObject({ point_count: 2, first_date: '2026-02-01' });
  });
  it('refuses bad arguments and bad files with exit 2', async () => {
    const file = path.join(dir, 'bad.csv');
    fs.writeFileSync(file, 'month,claims\nsoon,1\n');
    await expect(
      cli('import', file, '--slug', 'x-bad', '--cadence', 'monthly', '--date-column', 'month', '--value-column', 'claims'),
    ).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('not a date') });
    await expect(cli('import', file, '--slug', 'x', '--cadence', 'hourly')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--cadence'),
    });
    fs.writeFileSync(file, 'date,value\n2026-01-01,1\n');
    await expect(cli('import', file, '--slug', 'brand-new', '--cadence', 'daily')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--title is required'),
    });
  });
});
