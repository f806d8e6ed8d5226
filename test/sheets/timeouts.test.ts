/**
 * A connection Google accepts and never answers, for an API call or for the service account's
 * token: the request ends at COVERCHECK_SHEETS_TIMEOUT_MS and is retried like a 5xx, so a
 * write-back or a schedule is never held for good. Each wait has a full garbage collection in it:
 * a deadline composed with AbortSignal.any would be lost there (connector/src/deadline.ts).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SheetsApi, SheetsError } from '../../connector/src/sheets/api.js';
import { readServiceAccount, serviceAccountAuth } from '../../connector/src/sheets/auth.js';
import { SheetsLimiter } from '../../connector/src/sheets/limiter.js';
import { FakeGoogle } from '../helpers/fake-google.js';
import { gc } from '../helpers/gc.js';

const google = new FakeGoogle();
const SID = 'timeouts-sheet-0000000001';
const limiters: SheetsLimiter[] = [];

beforeAll(() => google.start());
afterAll(async () => {
  await Promise.all(limiters.map((l) => l.stop()));
  await google.stop();
});
beforeEach(() => {
  google.sheet(SID, 'Policies', [['Policy'], ['UKM-1000-0001']]);
  google.calls.length = 0;
  google.unanswered.length = 0;
});

function api(maxAttempts = 3): SheetsApi {
  const limiter = new SheetsLimiter({ perProject: 1000, perSpreadsheet: 1000, windowMs: 1000 });
  limiters.push(limiter);
  // A new auth client each time: no token cached from an earlier test.
  const auth = serviceAccountAuth(readServiceAccount(google.keyFile), 300);
  return new SheetsApi({ auth, rootUrl: `${google.url}/`, limiter, timeoutMs: 300, maxAttempts, backoffMs: 10 }, google.serviceEmail);
}

/** Runs `p` with a full collection 100 ms into it. */
async function withCollection<T>(p: Promise<T>): Promise<T> {
  const t = setTimeout(gc, 100);
  try {
    return await p;
  } finally {
    clearTimeout(t);
  }
}

describe('Sheets API requests that are never answered', () => {
  it('an API call past its deadline is sent again, and the answer to the second is used', async () => {
    google.unanswered.push('values.get');
    expect(await withCollection(api().readColumn(SID, 'Policies', 'A'))).toEqual(['Policy', 'UKM-1000-0001']);
    expect(google.count('values.get', SID)).toBe(2);
  });

  it('a call never answered on any attempt ends as a transient "no answer" error after its attempts', async () => {
    google.unanswered.push('values.get', 'values.get');
    const err = await withCollection(api(2).readColumn(SID, 'Policies', 'A')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SheetsError);
    expect(err).toMatchObject({ status: null, transient: true, message: expect.stringContaining('no answer from the Sheets API') });
    expect(google.count('values.get', SID)).toBe(2);
  });

  it('a token request never answered ends at its deadline; the retry gets a token and the call goes through', async () => {
    google.unanswered.push('token');
    expect(await withCollection(api().readColumn(SID, 'Policies', 'A'))).toEqual(['Policy', 'UKM-1000-0001']);
    expect(google.count('token')).toBe(2);
    expect(google.count('values.get', SID)).toBe(1);
  });
});
