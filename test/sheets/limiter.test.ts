/**
 * The Sheets limiter's turns and bounds (connector/src/sheets/limiter.ts, fair-share.ts), without
 * HTTP: each key waits in its own queue and keys take turns at the quota; past the bounds of calls
 * waiting, a call is refused at once with a retryable SheetsBusyError; the quota stays the outer bound.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SheetsBusyError } from '../../connector/src/sheets/errors.js';
import { SheetsLimiter, type SheetsLimits } from '../../connector/src/sheets/limiter.js';

const limiters: SheetsLimiter[] = [];
const gates: { open(): void }[] = [];
afterEach(async () => {
  // A failed test may leave calls running: the limiter's stop waits for them.
  for (const g of gates.splice(0)) g.open();
  await Promise.all(limiters.splice(0).map((l) => l.stop()));
});

function limiter(limits: Partial<SheetsLimits> = {}): SheetsLimiter {
  const l = new SheetsLimiter({ perProject: 1000, perSpreadsheet: 1000, windowMs: 1000, ...limits });
  limiters.push(l);
  return l;
}

/** A call that runs until `open()`; `started` says whether the limiter let it go. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  const g = { started: false, open, fn: async () => ((g.started = true), await opened, 'done') };
  gates.push(g);
  return g;
}

const tick = (ms = 30) => new Promise((r) => setTimeout(r, ms));
async function untilStarted(...gs: { started: boolean }[]): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!gs.every((g) => g.started) && Date.now() < deadline) await tick(5);
  expect(gs.map((g) => g.started)).toEqual(gs.map(() => true));
}
const refusal = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: unknown) => e,
  );

describe('SheetsLimiter: bounds', () => {
  it("refuses a key's call at once past its bound of calls waiting, retryably; another key still gets in", async () => {
    const l = limiter({ waitingPerKey: 3 });
    const first = gate();
    const running = l.schedule({ keyId: 'k1', spreadsheetId: 's1' }, first.fn);
    await untilStarted(first);
    // One call of a key is handed on at a time: these wait for k1's turn.
    const waiting = [1, 2, 3].map(() => l.schedule({ keyId: 'k1', spreadsheetId: 's2' }, async () => 'ok'));
    expect(l.waiting('k1')).toBe(3);
    const err = await refusal(l.schedule({ keyId: 'k1', spreadsheetId: 's3' }, async () => 'never'));
    expect(err).toBeInstanceOf(SheetsBusyError);
    expect(err).toMatchObject({ scope: 'key', transient: true, retryAfter: expect.any(Number) });
    expect((err as SheetsBusyError).retryAfter).toBeGreaterThanOrEqual(1);
    // Not everyone's problem: another key is served while k1's first call still runs.
    await expect(l.schedule({ keyId: 'k2', spreadsheetId: 's4' }, async () => 'k2 ok')).resolves.toBe('k2 ok');
    first.open();
    await expect(running).resolves.toBe('done');
    await expect(Promise.all(waiting)).resolves.toEqual(['ok', 'ok', 'ok']);
    expect(l.waiting()).toBe(0);
  });

  it('past the total bound a key with a call waiting is refused; a key with none waiting still gets a place', async () => {
    const l = limiter({ waitingPerKey: 10, waitingTotal: 4 });
    // Four keys' calls running: as many as are handed on at once, so the next calls wait.
    const keyGates = ['a', 'b', 'd', 'e'].map((k) => ({ k, g: gate() }));
    const running = keyGates.map(({ k, g }) => l.schedule({ keyId: k, spreadsheetId: `sheet-${k}` }, g.fn));
    await untilStarted(...keyGates.map(({ g }) => g));
    const waiting = [
      ...[1, 2, 3].map(() => l.schedule({ keyId: 'a', spreadsheetId: 'sheet-a' }, async () => 'a')),
      l.schedule({ keyId: 'b', spreadsheetId: 'sheet-b' }, async () => 'b'),
    ];
    expect(l.waiting()).toBe(4);
    for (const k of ['a', 'b'])
      expect(await refusal(l.schedule({ keyId: k, spreadsheetId: 'x' }, async () => 'never'))).toMatchObject({
        scope: 'all',
        transient: true,
      });
    // A key with nothing waiting always has one place, whatever the others queued.
    const c = l.schedule({ keyId: 'c', spreadsheetId: 'sheet-c' }, async () => 'c');
    expect(l.waiting()).toBe(5);
    for (const { g } of keyGates) g.open();
    await expect(Promise.all([...running, ...waiting, c])).resolves.toEqual(['done', 'done', 'done', 'done', 'a', 'a', 'a', 'b', 'c']);
  });

  it('stop() refuses the calls still waiting', async () => {
    const l = new SheetsLimiter({ perProject: 1000, perSpreadsheet: 1000, windowMs: 1000 });
    const first = gate();
    const running = l.schedule({ keyId: 'k', spreadsheetId: 's' }, first.fn);
    const waiting = l.schedule({ keyId: 'k', spreadsheetId: 's' }, async () => 'never');
    await untilStarted(first);
    const stopped = l.stop();
    await expect(waiting).rejects.toThrow(/stopped/);
    first.open();
    await running;
    await stopped;
  });
});

describe('SheetsLimiter: turns', () => {
  it("a key's backlog on a shared spreadsheet delays another key's call by at most one of its calls", async () => {
    // 20 calls a second on the spreadsheet: the backlog is 2 s of work.
    const l = limiter({ perProject: 20, perSpreadsheet: 20, waitingPerKey: 50 });
    const order: string[] = [];
    const call = (key: string, i: number) =>
      l.schedule({ keyId: key, spreadsheetId: 'shared-sheet' }, async () => void order.push(`${key}${i}`));
    const backlog = Array.from({ length: 40 }, (_, i) => call('noisy', i));
    await tick(10);
    const quiet = call('quiet', 0);
    await quiet;
    // noisy0 was running or spaced when quiet arrived; at most one more of noisy's went before it.
    expect(order.indexOf('quiet0')).toBeLessThanOrEqual(2);
    await Promise.all(backlog);
    expect(order).toHaveLength(41);
  });

  it('keys with backlogs alternate', async () => {
    const l = limiter({ perProject: 100, perSpreadsheet: 100, waitingPerKey: 50 });
    const order: string[] = [];
    const calls = ['a', 'b', 'c'].flatMap((k) =>
      Array.from({ length: 5 }, (_, i) => l.schedule({ keyId: k, spreadsheetId: `sheet-${k}` }, async () => void order.push(k))),
    );
    await Promise.all(calls);
    // After the first round, every window of three calls holds one of each key.
    for (let i = 0; i + 3 <= order.length; i += 3) expect(new Set(order.slice(i, i + 3)).size, order.join('')).toBe(3);
  });

  it('the quota stays the outer bound: calls of many keys are spaced as one', async () => {
    // One call every 100 ms for the connector, whichever key's turn it is.
    const l = limiter({ perProject: 10, perSpreadsheet: 1000, windowMs: 1000 });
    const at: number[] = [];
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        l.schedule({ keyId: `key-${i % 4}`, spreadsheetId: `s-${i}` }, async () => void at.push(performance.now())),
      ),
    );
    at.sort((a, b) => a - b);
    // Bottleneck spaces the times it sets for each call; a timer that fires late shortens the next
    // gap as seen here, but not the span: 11 gaps of 100 ms (20 ms of slack for the clocks).
    expect(at.at(-1)! - at[0]!).toBeGreaterThanOrEqual(11 * 100 - 20);
  });
});
