/** Opens the SQLite file with the store's settings (WAL, busy timeout, foreign keys) and applies its migrations. */
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import type { Migration } from '../migration.js';

export type Db = Database.Database;

export function openDatabase(databasePath: string): Db {
  if (databasePath !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(databasePath)), { recursive: true });
  const db = new Database(databasePath);
  db.pragma('journal_mode = WAL');
  // NORMAL is durable across process crashes in WAL mode (only an OS crash may lose the last commits).
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  return db;
}

/** Applies pending migrations; safe to call on every start and from several processes. */
export function migrate(db: Db, migrations: Migration[]): number[] {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
  const applied: number[] = [];
  for (const m of migrations) {
    db.transaction(() => {
      const done = db.prepare('SELECT 1 FROM schema_migrations WHERE id = ?').get(m.id);
      if (done) return;
      db.exec(m.sql);
      db.prepare('INSERT INTO schema_migrations (id, name, applied_at) VALUES (?, ?, ?)').run(m.id, m.name, new Date().toISOString());
      applied.push(m.id);
    }).immediate();
  }
  return applied;
}
