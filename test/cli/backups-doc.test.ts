/**
 * docs/backups.md as an operator follows it: every command of its sh blocks runs as written (through
 * npm and a shell, with PostgreSQL's client tools), with the page's example folders swapped for
 * temporary ones, and does what the page says.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createApiKey } from '../../connector/src/auth/create-key.js';
import { authenticate } from '../../connector/src/auth/keys.js';
import { openStore, type Store } from '../../connector/src/store/index.js';
import { createDatabase } from '../helpers/services.js';

const run = promisify(execFile);
const DOC = fs.readFileSync('docs/backups.md', 'utf8');
const BLOCKS = [...DOC.matchAll(/^```sh\n([\s\S]*?)^```/gm)].map((m) => m[1]!.trim());

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'covercheck-backups-doc-'));
const LIB = path.join(root, 'lib');
const BACKUPS = path.join(root, 'backups');
fs.mkdirSync(LIB);
fs.mkdirSync(BACKUPS);
const DB = path.join(LIB, 'covercheck.db');
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const pgBin = (() => {
  const versions = fs.readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
  return path.join('/usr/lib/postgresql', versions[0]!, 'bin');
})();

/** Runs one block of the page in sh, its example folders mapped to this test's. */
async function runBlock(index: number, env: Record<string, string> = {}): Promise<string> {
  const script = BLOCKS[index]!.replaceAll('/var/lib/covercheck', LIB).replaceAll('/var/backups/covercheck', BACKUPS);
  const { stdout } = await run('sh', ['-e', '-c', script], {
    cwd: process.cwd(),
    env: { ...process.env, PATH: `${pgBin}:${process.env.PATH}`, COVERCHECK_LOG_LEVEL: 'silent', ...env },
  });
  return stdout;
}

/** The file a block names under the backup folder with a fixed date (a restore's example). */
function namedBackup(index: number, ext: 'db' | 'dump'): string {
  const m = new RegExp(`/var/backups/covercheck/(covercheck-\\d{4}-\\d{2}-\\d{2}\\.${ext})`).exec(BLOCKS[index]!);
  expect(m, `block ${index} names a dated .${ext} file`).not.toBeNull();
  return path.join(BACKUPS, m![1]!);
}

/** The one file a block wrote into the backup folder with today's date. */
function todays(ext: 'db' | 'dump'): string {
  const found = fs.readdirSync(BACKUPS).filter((f) => new RegExp(`^covercheck-\\d{4}-\\d{2}-\\d{2}\\.${ext}$`).test(f));
  expect(found).toHaveLength(1);
  return path.join(BACKUPS, found[0]!);
}

async function authenticates(store: Store, key: string): Promise<boolean> {
  return (await authenticate(`Bearer ${key}`, store.keys)).ok;
}

const newKey = (store: Store, name: string) => createApiKey(store, { mode: 'live', name, scopes: ['verify'] }).then((k) => k.key);

describe('docs/backups.md', () => {
  it('has the five commands this test runs: SQLite backup and restore, pg_dump, pg_restore, migrate:pg', () => {
    expect(BLOCKS).toHaveLength(5);
    expect(BLOCKS.map((b) => b.split(' ').slice(0, 3).join(' '))).toEqual([
      'npm run backup',
      'npm run restore',
      'pg_dump --format=custom --file=/var/backups/covercheck/covercheck-$(date',
      'pg_restore --no-owner --exit-on-error',
      'npm run migrate:pg',
    ]);
  });

  let backedUpKey = '';
  it('SQLite: the backup command copies the store while it is open, with what sits in its WAL', async () => {
    const live = await openStore({ databasePath: DB });
    try {
      backedUpKey = await newKey(live, 'before the backup');
      expect(fs.statSync(`${DB}-wal`).size).toBeGreaterThan(0);
      const out = await runBlock(0);
      expect(out).toContain('"integrity":"ok"');
    } finally {
      await live.close();
    }
    const copy = await openStore({ databasePath: todays('db') });
    expect(await authenticates(copy, backedUpKey)).toBe(true);
    await copy.close();
  }, 60_000);

  it('SQLite: the restore command puts the backup back, keeping the replaced database', async () => {
    fs.copyFileSync(todays('db'), namedBackup(1, 'db'));
    const live = await openStore({ databasePath: DB });
    const laterKey = await newKey(live, 'after the backup');
    await live.close();
    await runBlock(1);
    const restored = await openStore({ databasePath: DB });
    try {
      expect(await authenticates(restored, backedUpKey)).toBe(true);
      expect(await authenticates(restored, laterKey)).toBe(false);
    } finally {
      await restored.close();
    }
    expect(fs.readdirSync(LIB).filter((f) => f.startsWith('covercheck.db.replaced-'))).toHaveLength(1);
  }, 60_000);

  it('PostgreSQL: pg_dump, then pg_restore into a new database, keeps the keys', async () => {
    const url = await createDatabase(inject('postgresUrl'), 'docdump', inject('postgresMigrated'));
    const pg = await openStore({ databasePath: '', databaseUrl: url, poolSize: 1 });
    const key = await newKey(pg, 'on PostgreSQL');
    await pg.close();
    await runBlock(2, { COVERCHECK_DATABASE_URL: url });
    fs.copyFileSync(todays('dump'), namedBackup(3, 'dump'));
    const restoredUrl = await createDatabase(inject('postgresUrl'), 'docrestore');
    await runBlock(3, { NEW_DATABASE_URL: restoredUrl });
    const restored = await openStore({ databasePath: '', databaseUrl: restoredUrl, poolSize: 1 });
    try {
      expect(await authenticates(restored, key)).toBe(true);
    } finally {
      await restored.close();
    }
  }, 60_000);

  it('the move: migrate:pg copies the SQLite store into an empty PostgreSQL database, keys working', async () => {
    const url = await createDatabase(inject('postgresUrl'), 'docmove');
    const out = await runBlock(4, { COVERCHECK_DATABASE_URL: url });
    expect(out).toContain('"copied"');
    const pg = await openStore({ databasePath: '', databaseUrl: url, poolSize: 1 });
    try {
      expect(await authenticates(pg, backedUpKey)).toBe(true);
    } finally {
      await pg.close();
    }
  }, 60_000);
});
