/** Column letters, one implementation for the connector's A1 ranges and the add-on's sheet targets. */
import { describe, expect, it } from 'vitest';
import { columnLetters } from '../../connector/src/sheets/a1.js';
import { columnLetter } from '../../shared/column-letters.js';

describe('columnLetter (1-based, the add-on and the sheet target)', () => {
  it('turns column numbers into letters across each width', () => {
    expect([1, 2, 26, 27, 52, 702, 703, 16384].map(columnLetter)).toEqual(['A', 'B', 'Z', 'AA', 'AZ', 'ZZ', 'AAA', 'XFD']);
  });

  it('gives an empty string for 0 and below', () => {
    expect([0, -1, -27].map(columnLetter)).toEqual(['', '', '']);
  });
});

describe('columnLetters (0-based, the connector write-back)', () => {
  it('is columnLetter one column on', () => {
    expect([0, 25, 26, 701, 702].map(columnLetters)).toEqual(['A', 'Z', 'AA', 'ZZ', 'AAA']);
    expect([-1, -2].map(columnLetters)).toEqual(['', '']);
  });
});
