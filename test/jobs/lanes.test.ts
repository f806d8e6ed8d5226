/** Whose document is read next (jobs/lanes.ts) and the bounds on documents waiting (jobs/document-room.ts), without HTTP. */
import { describe, expect, it } from 'vitest';
import { requireDocumentRoom } from '../../connector/src/jobs/document-room.js';
import { DocumentTurns } from '../../connector/src/jobs/lanes.js';
import type { ApiKeyRecord, DocumentQueueEntry, Store } from '../../connector/src/store/types.js';

const entry = (key_id: string, over: Partial<DocumentQueueEntry> = {}): DocumentQueueEntry => ({
  key_id,
  mode: 'live',
  leasable: 1,
  active: 0,
  pending: 1,
  oldest: '2026-01-01T00:00:00.000Z',
  ...over,
});

describe('DocumentTurns', () => {
  it('keys at their share wait; the key served longest ago goes first, then the oldest document', () => {
    const turns = new DocumentTurns({ perLiveKey: 2, perSandboxKey: 1 });
    const queue = [
      entry('flood', { mode: 'test', leasable: 40, pending: 41, active: 1, oldest: '2026-01-01T00:00:00.000Z' }),
      entry('busy', { leasable: 3, active: 2, oldest: '2026-01-01T00:00:01.000Z' }),
      entry('a', { oldest: '2026-01-01T00:00:05.000Z' }),
      entry('b', { oldest: '2026-01-01T00:00:03.000Z' }),
      entry('none', { leasable: 0, pending: 2, active: 0 }),
    ];
    // flood (sandbox, 1 in the readers) and busy (live, 2) are at their shares; none has nothing leasable now.
    expect(turns.order(queue)).toEqual(['b', 'a']);
    turns.took('b');
    expect(turns.order(queue)).toEqual(['a', 'b']);
    turns.took('a');
    expect(turns.order(queue)).toEqual(['b', 'a']);
    // Once flood's document in the readers is done, it takes its turn like anyone: it was never served here.
    const next = queue.map((e) => (e.key_id === 'flood' ? { ...e, active: 0 } : e));
    expect(turns.order(next)).toEqual(['flood', 'b', 'a']);
    turns.took('flood');
    expect(turns.order(next)).toEqual(['b', 'a', 'flood']);
  });
});

describe('requireDocumentRoom', () => {
  const key = (id: string, mode: 'live' | 'test') => ({ id, mode }) as ApiKeyRecord;
  const store = (queue: DocumentQueueEntry[]) => ({ jobs: { documentQueue: async () => queue } }) as unknown as Pick<Store, 'jobs'>;
  const limits = { perKey: 5, max: 8, sandboxSharePct: 50 };
  const now = new Date();

  it('per key: 429 with a retry delay', async () => {
    await expect(requireDocumentRoom(key('k', 'live'), store([entry('k', { pending: 5 })]), limits, now)).rejects.toMatchObject({
      code: 'rate_limit_exceeded',
      retryAfter: 10,
    });
    await expect(requireDocumentRoom(key('k', 'live'), store([entry('k', { pending: 4 })]), limits, now)).resolves.toBeUndefined();
  });
  it('sandbox keys together fill only their share; a live key is still let in', async () => {
    const full = store([entry('s1', { mode: 'test', pending: 2 }), entry('s2', { mode: 'test', pending: 2 })]);
    await expect(requireDocumentRoom(key('s3', 'test'), full, limits, now)).rejects.toMatchObject({ code: 'service_unavailable' });
    await expect(requireDocumentRoom(key('v', 'live'), full, limits, now)).resolves.toBeUndefined();
  });
  it('a small global bound still leaves sandbox keys one place; a share of 0 leaves them none', async () => {
    await expect(
      requireDocumentRoom(key('s', 'test'), store([]), { perKey: 5, max: 1, sandboxSharePct: 50 }, now),
    ).resolves.toBeUndefined();
    await expect(requireDocumentRoom(key('s', 'test'), store([]), { perKey: 5, max: 8, sandboxSharePct: 0 }, now)).rejects.toMatchObject({
      code: 'service_unavailable',
    });
  });
  it('everyone: the global bound', async () => {
    const full = store([entry('l1', { pending: 4 }), entry('l2', { pending: 4 })]);
    await expect(requireDocumentRoom(key('v', 'live'), full, limits, now)).rejects.toMatchObject({
      code: 'service_unavailable',
      retryAfter: 10,
    });
  });
});
