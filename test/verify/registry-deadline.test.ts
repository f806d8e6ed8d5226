/**
 * A registry lookup ends at its deadline however long the upstream stays silent, even when a
 * garbage collection runs while it waits. With AbortSignal.any([outer, AbortSignal.timeout(ms)])
 * a collection lost the timeout (nodejs/node#57736): a lookup of an upstream that never answers
 * then waited forever, the batch holding it never finished, and a stopping server waited for it.
 */
import { getEventListeners } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deadline } from '../../connector/src/deadline.js';
import { httpRegistry, limitedRegistry, registryChain, type RegistryAnswer } from '../../connector/src/verify/registry/index.js';
import { gc } from '../helpers/gc.js';

/** Resolves with what `p` settles to, or 'still waiting' after `ms`. */
const within = <T>(p: Promise<T>, ms: number) =>
  Promise.race([p, new Promise<'still waiting'>((r) => setTimeout(() => r('still waiting'), ms))]);
const aborted = (s: AbortSignal) => new Promise<unknown>((r) => s.addEventListener('abort', () => r(s.reason), { once: true }));

describe('deadline()', () => {
  it('aborts at its time after a full collection, with a TimeoutError', async () => {
    const d = deadline(200);
    const fired = aborted(d.signal);
    gc();
    const reason = await within(fired, 2000);
    expect(reason).toBeInstanceOf(DOMException);
    expect((reason as DOMException).name).toBe('TimeoutError');
  });

  it('aborts with the outer reason when the outer signal aborts first, and at once when it already has', async () => {
    const outer = new AbortController();
    const d = deadline(60_000, outer.signal);
    const fired = aborted(d.signal);
    gc();
    outer.abort('stopping');
    expect(await within(fired, 2000)).toBe('stopping');
    expect(deadline(60_000, outer.signal).signal.reason).toBe('stopping');
  });

  it('clear() drops the timer: the signal never aborts afterwards', async () => {
    const d = deadline(50);
    d.clear();
    expect(await within(aborted(d.signal), 300)).toBe('still waiting');
  });

  it('clear() also leaves the outer signal without its listener', () => {
    const outer = new AbortController();
    const ds = Array.from({ length: 50 }, () => deadline(60_000, outer.signal));
    expect(getEventListeners(outer.signal, 'abort')).toHaveLength(50);
    for (const d of ds) d.clear();
    expect(getEventListeners(outer.signal, 'abort')).toHaveLength(0);
  });
});

describe('limitedRegistry over an upstream that never answers', () => {
  let silent: http.Server;
  let base: string;
  beforeAll(async () => {
    silent = http.createServer(() => {});
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    silent.closeAllConnections();
    await new Promise((r) => silent.close(r));
  });

  it('answers unavailable at the deadline although a collection ran while every lookup waited', async () => {
    const limited = limitedRegistry(httpRegistry('upstream-uk', base), { maxConcurrent: 4, minTimeMs: 0, timeoutMs: 300 });
    try {
      // Four run at once, two wait in the limiter's queue: both kinds of wait must end.
      const lookups = Array.from({ length: 6 }, (_, i) =>
        limited.lookup({ policy_number: `UKM-7777-000${i}`, country: 'UK', insurance_type: 'motor' }),
      );
      await new Promise((r) => setTimeout(r, 50));
      gc();
      const answers = await within(Promise.all(lookups), 5000);
      expect(answers).not.toBe('still waiting');
      expect((answers as { kind: string; reason?: string }[]).map((a) => [a.kind, a.reason])).toEqual([
        ...Array.from({ length: 4 }, () => ['unavailable', 'timed out after 300 ms']),
        ...Array.from({ length: 2 }, () => ['unavailable', 'timed out in queue after 300 ms']),
      ]);
    } finally {
      // Bounded: with a lost deadline the running calls never end, and the failure above says so.
      await within(limited.limiter.stop({ dropWaitingJobs: true }), 1000);
    }
  });
});

it('no source composes signals with AbortSignal.any (deadline() is the one way to add a time limit to a signal)', () => {
  const root = path.resolve(import.meta.dirname, '../..');
  const offenders = ['connector/src', 'shared', 'addon/src'].flatMap((dir) =>
    (fs.readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' }) as string[])
      .filter((f) => /\.(?:ts|mts|js)$/.test(f))
      .filter((f) =>
        /AbortSignal\.any\s*\(/.test(fs.readFileSync(path.join(root, dir, f), 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '')),
      )
      .map((f) => `${dir}/${f}`),
  );
  expect(offenders).toEqual([]);
});

describe('the registry chain under many lookups at once', () => {
  it('50 upstream lookups in flight raise no MaxListenersExceededWarning (the chain passes no signal for listeners to pile up on)', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      const slowUpstream = {
        name: 'slow',
        lookup: () => new Promise<RegistryAnswer>((r) => setTimeout(() => r({ kind: 'not_found', source: 'slow', demo: false }), 30)),
      };
      const noLocal = { name: 'local', lookup: async (): Promise<RegistryAnswer> => ({ kind: 'no_coverage', source: 'local' }) };
      // Ten run at once, the others wait in the limiter's queue, each with its deadline running.
      const chain = registryChain(
        noLocal,
        { UK: limitedRegistry(slowUpstream, { maxConcurrent: 10, minTimeMs: 0, timeoutMs: 5000 }) },
        noLocal,
      );
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          chain.lookup({ country: 'UK', insurance_type: 'motor', policy_number: `UKM${i}0000000` }, 'live'),
        ),
      );
      expect(answers.every((a) => a.kind === 'not_found')).toBe(true);
      await chain.stop();
      // Warnings are emitted on a later tick.
      await new Promise((r) => setImmediate(r));
      expect(warnings).not.toContain('MaxListenersExceededWarning');
    } finally {
      process.off('warning', onWarning);
    }
  });
});
