/** The per-host gate of webhook attempts: slots, the waiting line, the breaker, on a controlled clock. */
import { beforeEach, describe, expect, it } from 'vitest';
import { HostGate, type HostGateOptions } from '../../connector/src/webhooks/host-gate.js';

let clock = 0;
const gate = (o: Partial<HostGateOptions> = {}) =>
  new HostGate<string>({
    perHost: 2,
    waitingPerHost: 2,
    waitingTotal: 100,
    breakerFailures: 3,
    breakerCooldownMs: 1000,
    now: () => clock,
    ...o,
  });

beforeEach(() => {
  clock = 0;
});

describe('HostGate', () => {
  it('runs perHost at once per host; hosts do not share slots', () => {
    const g = gate();
    expect([g.admit('a', 'a1'), g.admit('a', 'a2')]).toEqual(['run', 'run']);
    expect(g.admit('b', 'b1')).toBe('run');
    expect(g.admit('a', 'a3')).toBe('wait');
  });

  it('a freed slot goes to the first waiting item; a full line postpones', () => {
    const g = gate();
    g.admit('a', 'a1');
    g.admit('a', 'a2');
    expect([g.admit('a', 'a3'), g.admit('a', 'a4'), g.admit('a', 'a5')]).toEqual(['wait', 'wait', 'postpone']);
    expect(g.release('a', true)).toBe('a3');
    expect(g.release('a', true)).toBe('a4');
    expect(g.release('a', true)).toBeNull();
    expect(g.release('a', true)).toBeNull();
    // Every slot is free again.
    expect([g.admit('a', 'x'), g.admit('a', 'y')]).toEqual(['run', 'run']);
  });

  it('waiting items the caller can no longer start are skipped', () => {
    const g = gate();
    g.admit('a', 'a1');
    g.admit('a', 'a2');
    g.admit('a', 'stale');
    g.admit('a', 'fresh');
    expect(g.release('a', true, (item) => item !== 'stale')).toBe('fresh');
  });

  it('the total line bounds all hosts together', () => {
    const g = gate({ perHost: 1, waitingPerHost: 5, waitingTotal: 2 });
    g.admit('a', 'a1');
    g.admit('b', 'b1');
    expect([g.admit('a', 'a2'), g.admit('b', 'b2'), g.admit('a', 'a3')]).toEqual(['wait', 'wait', 'postpone']);
  });

  it('opens after breakerFailures consecutive failures: postpones for the cool-down and drops the line', () => {
    const g = gate();
    g.admit('a', 'a1');
    g.admit('a', 'a2');
    g.admit('a', 'a3');
    expect(g.release('a', false)).toBe('a3');
    expect(g.release('a', false)).toBeNull();
    g.admit('a', 'a4');
    g.admit('a', 'a5');
    // The third failure opens it: a5, waiting, is dropped, not handed the slot.
    expect(g.release('a', false)).toBeNull();
    expect(g.admit('a', 'a6')).toBe('postpone');
    clock = 999;
    expect(g.admit('a', 'a6')).toBe('postpone');
    // a4's attempt, already under way, ends; the breaker stays open.
    expect(g.release('a', false)).toBeNull();
    expect(g.admit('b', 'b1')).toBe('run');
  });

  it('after the cool-down one probe goes alone; its success closes the breaker', () => {
    const g = gate({ breakerFailures: 1 });
    g.admit('a', 'a1');
    g.release('a', false);
    clock = 1000;
    expect(g.admit('a', 'probe')).toBe('run');
    expect(g.admit('a', 'other')).toBe('postpone');
    expect(g.release('a', true)).toBeNull();
    expect([g.admit('a', 'x'), g.admit('a', 'y'), g.admit('a', 'z')]).toEqual(['run', 'run', 'wait']);
  });

  it('a failed probe opens it for another cool-down', () => {
    const g = gate({ breakerFailures: 1 });
    g.admit('a', 'a1');
    g.release('a', false);
    clock = 1000;
    expect(g.admit('a', 'probe')).toBe('run');
    g.release('a', false);
    clock = 1999;
    expect(g.admit('a', 'x')).toBe('postpone');
    clock = 2000;
    expect(g.admit('a', 'x')).toBe('run');
  });

  it('a healthy answer resets the count; an outcome that says nothing about the host neither counts nor resets', () => {
    const g = gate({ perHost: 1 });
    for (const healthy of [false, false, true, false, false, null, null]) {
      expect(g.admit('a', 'x')).toBe('run');
      g.release('a', healthy);
    }
    expect(g.admit('a', 'x')).toBe('run');
    g.release('a', false);
    expect(g.admit('a', 'x')).toBe('postpone');
  });

  it('breakerFailures 0: never opens', () => {
    const g = gate({ breakerFailures: 0, perHost: 1 });
    for (let i = 0; i < 50; i++) {
      expect(g.admit('a', 'x')).toBe('run');
      g.release('a', false);
    }
  });

  it('clearWaiting forgets every waiting item (stopping)', () => {
    const g = gate({ perHost: 1 });
    g.admit('a', 'a1');
    g.admit('a', 'a2');
    g.clearWaiting();
    expect(g.release('a', true)).toBeNull();
  });
});
