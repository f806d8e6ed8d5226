/**
 * Makes bottleneck 2.19's Redis error handling work on Redis 7.
 *
 * Bottleneck's Lua scripts fail with `redis.error_reply('SETTINGS_KEY_NOT_FOUND')` when a limiter's
 * keys have expired after its idle `timeout`, and with `UNKNOWN_CLIENT` when this instance's client
 * entry has; RedisDatastore.runScript recovers (re-runs `init` with the limiter's settings, or
 * re-registers the client, then retries) only when the error message is exactly that word. Redis 7
 * prefixes error replies without a code with `ERR `, so the recovery never runs: every call to an
 * expired limiter fails for good, and every heartbeat reports an error. The same prefix hides
 * `OVERWEIGHT:` from submit's check.
 *
 * The scripts' callback is made by the connection (`__scriptArgs__`), which every clustered limiter
 * shares; wrapping it on our one connection object strips the prefix from those three codes only,
 * before bottleneck looks. Nothing global is patched. If a bottleneck upgrade renames the hook, the
 * guard leaves the connection alone and test/scale/limiter-idle.test.ts fails.
 */
import type Bottleneck from 'bottleneck';

type ScriptCallback = (err: Error | null, replies: unknown) => void;
interface ScriptHook {
  __scriptArgs__?: (name: string, id: string, args: unknown[], cb: ScriptCallback) => unknown[];
}

const BOTTLENECK_CODE = /^ERR ((?:SETTINGS_KEY_NOT_FOUND|UNKNOWN_CLIENT)$|OVERWEIGHT:)/;
const patched = new WeakSet<object>();

/** The error bottleneck's recovery expects: the script's own code, without Redis 7's `ERR ` prefix. */
export function bareScriptError(err: Error | null): Error | null {
  if (!err || !BOTTLENECK_CODE.test(err.message)) return err;
  return Object.assign(new Error(err.message.slice('ERR '.length), { cause: err }), { name: err.name });
}

/** Wraps the connection's script callback once; returns whether the hook was found. */
export function recoverExpiredLimiters(connection: Bottleneck.IORedisConnection): boolean {
  const hook = connection as unknown as ScriptHook;
  if (patched.has(hook)) return true;
  const scriptArgs = hook.__scriptArgs__;
  if (typeof scriptArgs !== 'function') return false;
  hook.__scriptArgs__ = (name, id, args, cb) => scriptArgs.call(hook, name, id, args, (err, replies) => cb(bareScriptError(err), replies));
  patched.add(hook);
  return true;
}
