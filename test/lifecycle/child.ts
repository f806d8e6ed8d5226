/**
 * The built connector (`dist/connector/main.js`, as `npm start` runs it) in a child process on
 * loopback (test/helpers/built-connector.ts) at log level info, and what the lifecycle suites do with it:
 * stop it, clean up after it, look for stack traces in what it printed.
 */
import fs from 'node:fs';
import { spawnConnector as spawnBuilt, whenReady, type ConnectorChild, type SpawnOptions } from '../helpers/built-connector.js';

export { whenReady, type ConnectorChild };

/** The built connector logging at info, so a test reads its start and stop lines. */
export function spawnConnector(opts: SpawnOptions = {}): ConnectorChild {
  return spawnBuilt({ ...opts, env: { COVERCHECK_LOG_LEVEL: 'info', ...opts.env } });
}

/** Sends SIGTERM; resolves with the exit and how long it took from the signal, once all output is in. */
export async function terminate(c: ConnectorChild): Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }> {
  const t0 = performance.now();
  c.proc.kill('SIGTERM');
  const { code, signal, at } = await c.exited;
  await c.closed;
  return { code, signal, ms: at - t0 };
}

/** Kills what is left (a test that failed halfway) and removes the folder. */
export async function cleanUp(c: ConnectorChild | undefined, opts: { keepDir?: boolean } = {}): Promise<void> {
  if (!c) return;
  if (c.proc.exitCode === null && c.proc.signalCode === null) {
    c.proc.kill('SIGKILL');
    await c.closed;
  }
  if (!opts.keepDir) fs.rmSync(c.dir, { recursive: true, force: true });
}

/** Lines that look like a JavaScript stack trace. */
export function stackLines(text: string): string[] {
  return text.split('\n').filter((l) => /^\s+at /.test(l));
}
