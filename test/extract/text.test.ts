/** fold() and the bounded edit distance: the fast paths give what the general ones give. */
import { describe, expect, it } from 'vitest';
import { distance } from 'fastest-levenshtein';
import { editDistanceWithin, fold } from '../../connector/src/extract/fields/text.js';

/** fold() as it was before its ASCII fast path. */
const slowFold = (s: string): string =>
  s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/ß/g, 'ss')
    .replace(/[\u2018\u2019\u00b4`]/g, "'")
    .toLowerCase();

describe('fold', () => {
  it('gives the general result on ASCII and non-ASCII text alike', () => {
    const samples = [
      'Policy No. AB-123/45',
      'It`s `quoted`',
      'ÉCHÉANCE du contrat',
      'Straße',
      'l’assureur',
      'Ärger´s',
      '',
      'MIXED ascii and ü',
      '\t~{}|\x7f',
    ];
    for (const s of samples) expect(fold(s)).toBe(slowFold(s));
    expect(fold('It`s')).toBe("it's");
  });
});

describe('editDistanceWithin', () => {
  it('is the edit distance when that is at most max, and max + 1 otherwise', () => {
    const words = [
      'september',
      'septernber',
      'sept',
      'fevrier',
      'fevrler',
      'februar',
      'mai',
      'may',
      'march',
      'marz',
      'maerz',
      '2025',
      'juin',
      'june',
      'juli',
      'x',
      '',
    ];
    for (const a of words) {
      for (const b of words) {
        for (const max of [0, 1, 2, 3]) {
          // The reference is a library's plain distance, not ours.
          const d = distance(a, b);
          expect(editDistanceWithin(a, b, max), `${a} ${b} ${max}`).toBe(d <= max ? d : max + 1);
        }
      }
    }
  });
});
