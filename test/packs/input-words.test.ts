/** Typed country and insurance-type words: a value far longer than any word names nothing, and costs no folding. */
import { describe, expect, it } from 'vitest';
import { countryFromInput, foldInput, insuranceTypeFromInput } from '../../shared/packs/index.js';

describe('typed words of any length', () => {
  it('a value longer than any known word is unsupported at once, not folded (the fuzz run timed 270-330 ms for 19 MB)', () => {
    const big = '\u00e9'.repeat(4 * 1024 * 1024);
    const time = (f: () => unknown) => {
      const t0 = performance.now();
      f();
      return performance.now() - t0;
    };
    // The work a fold of this value costs, in this run, against the lookups' time.
    const fold = time(() => foldInput(big));
    const lookups = time(() => {
      expect(countryFromInput(big)).toBeNull();
      expect(insuranceTypeFromInput(big)).toBeNull();
    });
    expect(lookups).toBeLessThan(fold / 10);
    // Words with spacing and accents around them still read.
    expect(countryFromInput('  Vereinigtes   Königreich  ')).toBe('UK');
    expect(insuranceTypeFromInput(' Assurance  santé ')).toBe('health');
  });
});
