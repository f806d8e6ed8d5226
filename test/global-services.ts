/**
 * vitest globalSetup: one throwaway PostgreSQL and one Redis for the whole run, on loopback,
 * stopped at the end. Suites get their URLs with `inject('postgresUrl')` / `inject('redisUrl')`
 * and make their own database (createDatabase) or key prefix, so files stay independent.
 * `inject('postgresMigrated')` names a database the store has migrated and nobody uses: a
 * template for createDatabase, so suites that need many fresh databases don't migrate each one.
 *
 * It also builds the connector once for the run (`npm start`'s bundle, in a folder of the run's
 * own; test/helpers/build.ts): the suites that start connector or extraction processes run the
 * bundle, as production does, and skip tsx's start-up (~4 s a process, ~0.8 s built).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { buildConnector } from '../scripts/build.mjs';
import { openStore } from '../connector/src/store/index.js';
import { alive, createDatabase, startPostgres, startRedis, type RunningService } from './helpers/services.js';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
    postgresMigrated: string;
    redisUrl: string;
    /** The run's connector bundle: `<dir>/connector/main.js`, `extract-host.js`, `worker.js`. */
    connectorBuild: string;
  }
}

interface Services {
  pg: RunningService;
  redis: RunningService;
  migrated: string;
  build: string;
}

/**
 * vitest runs the globalSetup of the root config and of every project that extends it (three
 * times here), each in its own module instance: the servers are shared through the process, and
 * stopped when the last of them tears down.
 */
const shared = globalThis as { covercheckServices?: { started: Promise<Services>; users: number } };

const ROOT = path.resolve(import.meta.dirname, '..');

async function start(): Promise<Services> {
  // Inside the repository (the bundle finds node_modules and connector/data by walking up), one
  // folder per run so that two runs at once don't overwrite each other's files; a killed run's folder
  // is removed by the next run.
  const builds = path.join(ROOT, '.cache', 'test-build');
  for (const dir of fs.existsSync(builds) ? fs.readdirSync(builds) : []) {
    const pid = Number(/^run-(\d+)$/.exec(dir)?.[1]);
    if (pid && !alive(pid)) fs.rmSync(path.join(builds, dir), { recursive: true, force: true });
  }
  const build = path.join(builds, `run-${process.pid}`);
  await buildConnector(path.relative(ROOT, build));
  const [pg, redis] = await Promise.all([startPostgres(), startRedis()]);
  try {
    const migratedUrl = await createDatabase(pg.url, 'migrated');
    const store = await openStore({ databasePath: '', databaseUrl: migratedUrl, poolSize: 1 });
    await store.close();
    return { pg, redis, migrated: new URL(migratedUrl).pathname.slice(1), build };
  } catch (err) {
    await Promise.all([pg.stop(), redis.stop()]);
    fs.rmSync(build, { recursive: true, force: true });
    throw err;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const entry = (shared.covercheckServices ??= { started: start(), users: 0 });
  entry.users++;
  const { pg, redis, migrated, build } = await entry.started;
  project.provide('postgresUrl', pg.url);
  project.provide('postgresMigrated', migrated);
  project.provide('redisUrl', redis.url);
  project.provide('connectorBuild', build);
  return async () => {
    if (--entry.users > 0) return;
    delete shared.covercheckServices;
    await Promise.all([pg.stop(), redis.stop()]);
    fs.rmSync(build, { recursive: true, force: true });
  };
}
