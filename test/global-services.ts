/**
 * vitest globalSetup: one throwaway PostgreSQL and one Redis for the whole run, on loopback,
 * stopped at the end. Suites get their URLs with `inject('postgresUrl')` / `inject('redisUrl')`
 * and make their own database (createDatabase) or key prefix, so files stay independent.
 * `inject('postgresMigrated')` names a database the store has migrated and nobody uses: a
 * template for createDatabase, so suites that need many fresh databases don't migrate each one.
 */
import type { TestProject } from 'vitest/node';
import { openStore } from '../connector/src/store/index.js';
import { createDatabase, startPostgres, startRedis, type RunningService } from './helpers/services.js';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
    postgresMigrated: string;
    redisUrl: string;
  }
}

interface Services {
  pg: RunningService;
  redis: RunningService;
  migrated: string;
}

/**
 * vitest runs the globalSetup of the root config and of every project that extends it (three
 * times here), each in its own module instance: the servers are shared through the process, and
 * stopped when the last of them tears down.
 */
const shared = globalThis as { covercheckServices?: { started: Promise<Services>; users: number } };

async function start(): Promise<Services> {
  const [pg, redis] = await Promise.all([startPostgres(), startRedis()]);
  try {
    const migratedUrl = await createDatabase(pg.url, 'migrated');
    const store = await openStore({ databasePath: '', databaseUrl: migratedUrl, poolSize: 1 });
    await store.close();
    return { pg, redis, migrated: new URL(migratedUrl).pathname.slice(1) };
  } catch (err) {
    await Promise.all([pg.stop(), redis.stop()]);
    throw err;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const entry = (shared.covercheckServices ??= { started: start(), users: 0 });
  entry.users++;
  const { pg, redis, migrated } = await entry.started;
  project.provide('postgresUrl', pg.url);
  project.provide('postgresMigrated', migrated);
  project.provide('redisUrl', redis.url);
  return async () => {
    if (--entry.users > 0) return;
    delete shared.covercheckServices;
    await Promise.all([pg.stop(), redis.stop()]);
  };
}
