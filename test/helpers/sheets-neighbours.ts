/**
 * Two keys of one connector sharing the Sheets quota, for the noisy-neighbour tests: the real connector
 * on loopback, with its workers, against the Sheets stand-in, at 10 calls a second for the connector and
 * for each spreadsheet (one call every 100 ms), so the quota's spacing, not the stand-in's speed, is what
 * a write-back waits for. The victim's spreadsheet is bound to its key; the binding-check limit is raised
 * out of the way, since what these tests measure is the sharing.
 */
import { expect } from 'vitest';
import { FakeGoogle } from './fake-google.js';
import { call, pollUntil, startTestServer, type TestServer } from './server.js';
import { bindOverHttp } from './sheets-binding.js';

/** The one policy every write-back here verifies and writes (a sandbox row: verified). */
export const POLICY = { policy_number: 'UKM-1000-0001', country: 'UK', insurance_type: 'motor' };

/** A sheet_target into the "Policies" sheet of `spreadsheetId`. */
export const policiesTarget = (spreadsheet_id: string) => ({
  spreadsheet_id,
  sheet_name: 'Policies',
  key_column: 'A',
  columns: { status: 'B' },
});

/** The "Policies" sheet as a write-back finds it: a header and POLICY's row with its status empty. */
export function addPoliciesSheet(google: FakeGoogle, spreadsheetId: string): void {
  google.sheet(spreadsheetId, 'Policies', [
    ['Policy', 'Status'],
    [POLICY.policy_number, ''],
  ]);
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export interface SheetsNeighbours {
  google: FakeGoogle;
  srv: TestServer;
  /** The keys (sandbox) of the one measured and the one that crowds it. */
  victim: string;
  attacker: string;
  /** One write-back of the victim's (an async verification with a sheet_target into its bound spreadsheet), submission to `written`, in ms. */
  victimWriteback(): Promise<number>;
  /** `rounds` of them, one after another. */
  victimRounds(rounds: number): Promise<number[]>;
  close(): Promise<void>;
}

export async function startSheetsNeighbours(opts: { victimSheet: string; env?: Record<string, string> }): Promise<SheetsNeighbours> {
  const google = new FakeGoogle();
  await google.start();
  let srv: TestServer | undefined;
  try {
    srv = await startTestServer({
      env: {
        GOOGLE_APPLICATION_CREDENTIALS: google.keyFile,
        COVERCHECK_SHEETS_ROOT_URL: `${google.url}/`,
        COVERCHECK_SHEETS_PER_MIN: '10',
        COVERCHECK_SHEETS_PER_SPREADSHEET_PER_MIN: '10',
        COVERCHECK_SHEETS_WINDOW_MS: '1000',
        COVERCHECK_SHEETS_RETRY_MS: '50',
        COVERCHECK_SHEETS_BINDING_CHECKS_PER_MIN: '100000',
        ...opts.env,
      },
    });
    const victim = (await srv.key({ mode: 'test', name: 'victim' })).key;
    const attacker = (await srv.key({ mode: 'test', name: 'attacker' })).key;
    addPoliciesSheet(google, opts.victimSheet);
    await bindOverHttp(srv.url, victim, google, opts.victimSheet);
    return neighbours(google, srv, victim, attacker, opts.victimSheet);
  } catch (err) {
    await srv?.close();
    await google.stop();
    throw err;
  }
}

function neighbours(google: FakeGoogle, srv: TestServer, victim: string, attacker: string, victimSheet: string): SheetsNeighbours {
  async function victimWriteback(): Promise<number> {
    const started = performance.now();
    const r = await call(srv.url, 'POST', '/api/v1/verify/async', {
      key: victim,
      body: { ...POLICY, sheet_target: policiesTarget(victimSheet) },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    const job = await pollUntil(
      srv.url,
      r.body.poll_url,
      victim,
      (b) => b.sheet_writeback?.status && b.sheet_writeback.status !== 'pending',
      120_000,
    );
    expect(job.sheet_writeback).toMatchObject({ status: 'written', written: 1 });
    return performance.now() - started;
  }

  return {
    google,
    srv,
    victim,
    attacker,
    victimWriteback,
    async victimRounds(rounds) {
      const times: number[] = [];
      for (let i = 0; i < rounds; i++) times.push(await victimWriteback());
      return times;
    },
    async close() {
      await srv.close();
      await google.stop();
    },
  };
}
