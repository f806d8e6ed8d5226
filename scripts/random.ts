/**
 * Seeded randomness for the corpus generators (make-corpus.ts, procedural/): the same seed draws the same
 * documents on every machine, so a corpus is reproducible from its seed alone.
 */
export type Rand = () => number;

/** mulberry32: small, fast, and the same sequence on every machine. */
export function prng(seed: number): Rand {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
export const chance = (r: Rand, p: number): boolean => r() < p;
export const int = (r: Rand, lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
/** n digits, a leading zero allowed (as in a policy number's digit groups). */
export const digits = (r: Rand, n: number): string => Array.from({ length: n }, () => String(int(r, 0, 9))).join('');
/** An n-digit number: no leading zero. */
export const number = (r: Rand, n: number): string =>
  Array.from({ length: n }, (_, i) => String(i === 0 ? int(r, 1, 9) : int(r, 0, 9))).join('');
/** Letters as plates and references print them: no I, O or Q unless the alphabet says so. */
export const letters = (r: Rand, n: number, alphabet = 'ABCDEFGHJKLMNPRSTUVWXYZ'): string =>
  Array.from({ length: n }, () => pick(r, [...alphabet])).join('');
