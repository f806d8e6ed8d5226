/**
 * The connector bundle built once for the test run (test/global-services.ts). Suites that start
 * connector or extraction processes use it: what production runs, and no tsx start-up per process.
 */
import path from 'node:path';
import { inject } from 'vitest';

export function built(): { main: string; extractHost: string; worker: string } {
  const dir = path.join(inject('connectorBuild'), 'connector');
  return { main: path.join(dir, 'main.js'), extractHost: path.join(dir, 'extract-host.js'), worker: path.join(dir, 'worker.js') };
}
