/**
 * Shared (Redis) limiters that sat idle past their timeout: Redis expires their keys, and the next
 * call must re-create them and go through, on the real Redis 7 the run starts. The idle timeout is
 * shortened to 1 s (COVERCHECK_REDIS_LIMITER_IDLE_MS) so the expiry happens inside the test.
 */
import crypto from 'node:crypto';
import { afterAll, describe, expect, inject, it } from 'vitest';
import type Bottleneck from 'bottleneck';
import { createLogger } from '../../connector/src/logger.js';
import { connectRedis, createLimiters, type RedisHandle } from '../../connector/src/redis/index.js';
import { bareScriptError } from '../../connector/src/redis/script-errors.js';
import { limitedRegistry, type RegistryAdapter } from '../../connector/src/verify/registry/index.js';

const redisUrl = inject('redisUrl');
const logger = createLogger('silent');
const IDLE_MS = 1_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const opened: RedisHandle[] = [];
afterAll(async () => {
  for (const h of opened.reverse()) await h.close();
});

/** A fresh instance (own connection, own key prefix) whose limiter errors are collected, not logged. */
async function instance(): Promise<{ handle: RedisHandle; errors: unknown[] }> {
  const h = await connectRedis({ url: redisUrl, prefix: `t_${crypto.randomBytes(6).toString('hex')}` }, logger);
  if (!h) throw new Error('no handle');
  opened.push(h);
  const errors: unknown[] = [];
  return { handle: { ...h, reportError: (err) => errors.push(err) }, errors };
}

/** Waits until Redis has dropped the limiters' settings keys: the state the idle timeout leaves. */
async function expired(h: RedisHandle, ...ids: string[]): Promise<void> {
  const keys = ids.map((id) => `b_${h.key(id)}_settings`);
  expect(await h.client.exists(...keys)).toBe(keys.length);
  const deadline = Date.now() + IDLE_MS * 5;
  while ((await h.client.exists(...keys)) > 0) {
    if (Date.now() > deadline) throw new Error(`${keys.join(', ')} still there ${IDLE_MS * 5} ms on`);
    await sleep(100);
  }
}

function peakOf(limiter: Bottleneck, n: number, ms: number): Promise<number> {
  let running = 0;
  let peak = 0;
  return Promise.all(
    Array.from({ length: n }, () =>
      limiter.schedule(async () => {
        peak = Math.max(peak, ++running);
        await sleep(ms);
        running--;
      }),
    ),
  ).then(() => peak);
}

describe('a shared limiter idle past its timeout', () => {
  it('schedules again after Redis expired its keys, with its own settings re-applied', async () => {
    const { handle, errors } = await instance();
    const limiter = createLimiters(handle, { idleTimeoutMs: IDLE_MS }).limiter('idle', { maxConcurrent: 2 });
    expect(await limiter.schedule(async () => 'first')).toBe('first');
    await expired(handle, 'idle');
    expect(await limiter.schedule(async () => 'after expiry')).toBe('after expiry');
    // Re-created with this instance's settings, not bottleneck's defaults (unlimited).
    expect(await peakOf(limiter, 5, 50)).toBe(2);
    // The heartbeats that ran while the keys were gone were not errors either.
    expect(errors).toEqual([]);
  });

  it('a quota limiter (reservoir, fast heartbeat) and a group key come back too', async () => {
    const { handle, errors } = await instance();
    const limiters = createLimiters(handle, { idleTimeoutMs: IDLE_MS });
    const quota = limiters.limiter('quota', { quota: { amount: 3, intervalMs: 60_000 } });
    const hosts = limiters.group('hosts', { maxConcurrent: 1 });
    await quota.schedule(async () => undefined);
    await hosts.key('a.example').schedule(async () => undefined);
    await expired(handle, 'quota', 'hosts-a.example');
    await quota.schedule(async () => undefined);
    await hosts.key('a.example').schedule(async () => undefined);
    expect(errors).toEqual([]);
  });

  it('an upstream lookup behind it is answered, not "unavailable", after the idle time', async () => {
    const { handle } = await instance();
    let calls = 0;
    const upstream: RegistryAdapter = {
      name: 'upstream-idle',
      async lookup() {
        calls++;
        return { kind: 'not_found', source: 'upstream-idle', demo: false };
      },
    };
    const limited = limitedRegistry(
      upstream,
      { maxConcurrent: 2, minTimeMs: 0, timeoutMs: 3_000, perSecond: 5 },
      createLimiters(handle, { idleTimeoutMs: IDLE_MS }),
    );
    const query = { policy_number: 'UKM10000001', country: 'UK', insurance_type: 'motor' } as const;
    expect(await limited.lookup(query, new AbortController().signal)).toMatchObject({ kind: 'not_found' });
    await sleep(IDLE_MS * 2.5);
    expect(await limited.lookup(query, new AbortController().signal)).toMatchObject({ kind: 'not_found' });
    expect(calls).toBe(2);
  });
});

describe('bareScriptError', () => {
  it("strips Redis 7's ERR prefix from bottleneck's own codes and nothing else", () => {
    expect(bareScriptError(new Error('ERR SETTINGS_KEY_NOT_FOUND'))?.message).toBe('SETTINGS_KEY_NOT_FOUND');
    expect(bareScriptError(new Error('ERR UNKNOWN_CLIENT'))?.message).toBe('UNKNOWN_CLIENT');
    expect(bareScriptError(new Error('ERR OVERWEIGHT:3:2'))?.message).toBe('OVERWEIGHT:3:2');
    for (const other of [
      'ERR SETTINGS_KEY_NOT_FOUND_ELSEWHERE',
      'ERR unknown command',
      'NOSCRIPT No matching script',
      'SETTINGS_KEY_NOT_FOUND',
    ]) {
      const err = new Error(other);
      expect(bareScriptError(err)).toBe(err);
    }
    expect(bareScriptError(null)).toBeNull();
  });
});
