/**
 * vitest globalSetup: one throwaway PostgreSQL and one Redis for the whole run, on loopback,
 * stopped at the end. Suites get their URLs with `inject('postgresUrl')` / `inject('redisUrl')`
 * and make their own database (createDatabase) or key prefix, so files stay independent.
 */
import type { TestProject } from 'vitest/node';
import { startPostgres, startRedis } from './helpers/services.js';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
    redisUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const [pg, redis] = await Promise.all([startPostgres(), startRedis()]);
  project.provide('postgresUrl', pg.url);
  project.provide('redisUrl', redis.url);
  return async () => {
    await Promise.all([pg.stop(), redis.stop()]);
  };
}
