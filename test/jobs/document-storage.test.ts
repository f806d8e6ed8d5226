/** requireDocumentStorage: the per-key quota of stored document bytes and the disk guard, with an injected statfs. */
import { describe, expect, it } from 'vitest';
import { AppError } from '../../connector/src/errors.js';
import { requireDocumentStorage, type DocumentStorage } from '../../connector/src/jobs/document-storage.js';

const MB = 1024 * 1024;
const store = (held: Record<string, number>) => ({ jobs: { documentBytes: async (id: string) => held[id] ?? 0 } }) as never;
const live = { id: 'k-live', mode: 'live' as const };
const sandbox = { id: 'k-test', mode: 'test' as const };
/** A filesystem with `freeMb` free, in 4 KB blocks; counts its calls. */
function disk(freeMb: number) {
  const calls: string[] = [];
  return { calls, statfs: async (p: string) => (calls.push(p), { bavail: (freeMb * MB) / 4096, bsize: 4096 }) };
}
const storage = (over: Partial<DocumentStorage> = {}): DocumentStorage => ({
  quotaBytes: { live: 10 * MB, sandbox: 2 * MB },
  diskGuardPath: '/data',
  diskReserveBytes: 100 * MB,
  statfs: disk(1000).statfs,
  ...over,
});

async function refusal(p: Promise<void>): Promise<AppError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

describe('requireDocumentStorage', () => {
  it('a key may fill its quota exactly; one byte more is 429 document_quota_exceeded with a long retry delay', async () => {
    await requireDocumentStorage(sandbox, MB, store({ 'k-test': MB }), storage());
    const err = await refusal(requireDocumentStorage(sandbox, MB + 1, store({ 'k-test': MB }), storage()));
    expect(err).toMatchObject({ code: 'document_quota_exceeded', status: 429 });
    expect(err.retryAfter).toBeGreaterThanOrEqual(3600);
    expect(err.publicMessage).toMatch(/quota is 2 MB/);
  });
  it("a live key has its own, larger quota; other keys' bytes do not count", async () => {
    await requireDocumentStorage(live, 5 * MB, store({ 'k-live': 5 * MB, 'k-test': 100 * MB }), storage());
    expect((await refusal(requireDocumentStorage(live, 5 * MB + 1, store({ 'k-live': 5 * MB }), storage()))).code).toBe(
      'document_quota_exceeded',
    );
  });
  it('the disk guard: a document that would leave less than the reserve free is 507 insufficient_storage', async () => {
    const d = disk(101);
    await requireDocumentStorage(sandbox, MB, store({}), storage({ statfs: d.statfs }));
    expect(d.calls).toEqual(['/data']);
    const err = await refusal(requireDocumentStorage(sandbox, MB + 1, store({}), storage({ statfs: d.statfs })));
    expect(err).toMatchObject({ code: 'insufficient_storage', status: 507, retryAfter: undefined });
    // What an operator reads in the log names the path and the figures; the client is told neither.
    expect(err.message).toMatch(/\/data/);
    expect(err.publicMessage).not.toMatch(/\/data/);
  });
  it('the quota is checked first: a key at its quota is told so even on a full disk', async () => {
    expect((await refusal(requireDocumentStorage(sandbox, 3 * MB, store({}), storage({ statfs: disk(0).statfs })))).code).toBe(
      'document_quota_exceeded',
    );
  });
  it('fails closed when the free space cannot be read', async () => {
    const statfs = async () => {
      throw Object.assign(new Error('ENOENT: no such file or directory'), { code: 'ENOENT' });
    };
    const err = await refusal(requireDocumentStorage(sandbox, 1, store({}), storage({ statfs })));
    expect(err).toMatchObject({ code: 'insufficient_storage', status: 507 });
    expect(err.message).toMatch(/ENOENT/);
  });
  it('without a guard path (PostgreSQL on another machine) the disk is not asked', async () => {
    const d = disk(0);
    await requireDocumentStorage(sandbox, MB, store({}), storage({ diskGuardPath: null, statfs: d.statfs }));
    expect(d.calls).toEqual([]);
  });
});
