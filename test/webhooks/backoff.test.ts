import { describe, expect, it } from 'vitest';
import { MAX_ATTEMPTS, RETRY_DELAYS_S, nextRetryDelayMs } from '../../connector/src/webhooks/index.js';

const fixed = (value: number) => () => value;

describe('retry schedule', () => {
  it('has eight retries after the first attempt, about 20.7 hours in all', () => {
    expect(RETRY_DELAYS_S).toEqual([10, 30, 120, 600, 1800, 7200, 21600, 43200]);
    expect(MAX_ATTEMPTS).toBe(9);
    expect(RETRY_DELAYS_S.reduce((a, b) => a + b, 0)).toBe(74_560);
  });

  it('waits the base delay when the jitter is centred', () => {
    const delays = [1, 2, 3, 4, 5, 6, 7, 8].map((n) => nextRetryDelayMs(n, { random: fixed(0.5) }));
    expect(delays).toEqual([10_000, 30_000, 120_000, 600_000, 1_800_000, 7_200_000, 21_600_000, 43_200_000]);
  });

  it('jitters by 20% either way at the extremes', () => {
    expect(nextRetryDelayMs(1, { random: fixed(0) })).toBe(8_000);
    expect(nextRetryDelayMs(1, { random: fixed(1) })).toBe(12_000);
    expect(nextRetryDelayMs(8, { random: fixed(0) })).toBe(34_560_000);
    expect(nextRetryDelayMs(8, { random: fixed(1) })).toBe(51_840_000);
    expect(nextRetryDelayMs(3, { random: fixed(0.25) })).toBe(108_000);
  });

  it('stays within ±20% with the default random source', () => {
    for (let i = 0; i < 200; i++) {
      const delay = nextRetryDelayMs(2)!;
      expect(delay).toBeGreaterThanOrEqual(24_000);
      expect(delay).toBeLessThanOrEqual(36_000);
    }
  });

  it('gives up once every attempt has been made', () => {
    expect(nextRetryDelayMs(MAX_ATTEMPTS - 1, { random: fixed(0.5) })).toBe(43_200_000);
    expect(nextRetryDelayMs(MAX_ATTEMPTS, { random: fixed(0.5) })).toBeNull();
    expect(nextRetryDelayMs(MAX_ATTEMPTS + 5, { random: fixed(0.5) })).toBeNull();
  });

  it('scales the delays so tests can run the schedule in milliseconds', () => {
    expect(nextRetryDelayMs(1, { scale: 0.001, random: fixed(0.5) })).toBe(10);
    expect(nextRetryDelayMs(8, { scale: 0.001, random: fixed(0.5) })).toBe(43_200);
    expect(nextRetryDelayMs(2, { scale: 0.001, random: fixed(1) })).toBe(36);
  });

  it('refuses a count that is not a positive integer', () => {
    expect(() => nextRetryDelayMs(0)).toThrow(RangeError);
    expect(() => nextRetryDelayMs(1.5)).toThrow(RangeError);
  });
});
