/**
 * The real connector in its own process for the add-on tests: the vm code blocks the test's
 * thread in Atomics.wait during UrlFetch calls, so the server must not share it. Prints one JSON
 * line {url, keys}; stops on SIGTERM or when stdin closes.
 * argv[2]: JSON {extraction?: boolean, keys: {name: {mode, credits?, scopes?}}}
 */
import { startTestServer } from '../helpers/server.js';
import type { TScope } from '../../shared/account.js';

const spec = JSON.parse(process.argv[2] ?? '{}') as { extraction?: boolean; env?: Record<string, string>; keys?: Record<string, { mode?: 'live' | 'test'; credits?: number; scopes?: TScope[] }> };
const srv = await startTestServer({ extraction: !!spec.extraction, ...(spec.env ? { env: spec.env } : {}) });
const keys: Record<string, string> = {};
for (const [name, k] of Object.entries(spec.keys ?? {})) keys[name] = (await srv.key({ ...k, name })).key;
process.stdout.write(JSON.stringify({ url: srv.url, keys }) + '\n');
let closing = false;
const stop = async () => {
  if (closing) return;
  closing = true;
  await srv.close();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.stdin.on('end', stop);
process.stdin.resume();
