import { describe, expect, it } from 'vitest';
import { toIsoDate } from '../../connector/src/datasets/dates.js';
import { readCsvSeries, readJsonSeries, SeriesFormatError, stepToMonthEnd } from '../../connector/src/datasets/read-series.js';
import { searchTerms } from '../../connector/src/datasets/search-query.js';
import { toFtsQuery } from '../../connector/src/store/sqlite/datasets.js';

describe('toIsoDate', () => {
  it('keeps full dates and turns period labels into the first day of the period', () => {
    expect(toIsoDate('2026-03-01')).toBe('2026-03-01');
    expect(toIsoDate('2026-03-01T00:00:00Z')).toBe('2026-03-01');
    expect(toIsoDate('1988-01')).toBe('1988-01-01');
    expect(toIsoDate('1955-Q1')).toBe('1955-01-01');
    expect(toIsoDate('1955Q4')).toBe('1955-10-01');
  });
  it('refuses impossible and foreign forms', () => {
    for (const bad of ['2026-02-30', '2026-13', '01/03/2026', '1955-Q5', 'yesterday', '']) expect(toIsoDate(bad), bad).toBeNull();
  });
});

describe('readCsvSeries', () => {
  it('reads the named columns, sorted, skipping gaps', () => {
    const csv = 'date,v,other\n2024-02-01,2.5,x\n2024-01-01,1.5,x\n2024-03-01,.,x\n2024-04-01,,x\n';
    expect(readCsvSeries(csv, { date_column: 'date', value_column: 'v' })).toEqual([
      { date: '2024-01-01', value: 1.5 },
      { date: '2024-02-01', value: 2.5 },
    ]);
  });
  it('applies row filters', () => {
    const csv = 'date,series,value\n2024-01-01,Euro,0.9\n2024-01-01,United Kingdom,0.8\n';
    expect(readCsvSeries(csv, { date_column: 'date', value_column: 'value', filter: { series: ['United Kingdom'] } })).toEqual([
      { date: '2024-01-01', value: 0.8 },
    ]);
  });
  it('names the missing column and the bad line', () => {
    expect(() => readCsvSeries('day,v\n2024-01-01,1\n', { date_column: 'date', value_column: 'v' })).toThrow(/missing column date/);
    expect(() => readCsvSeries('date,v\n2024-01-01,abc\n', { date_column: 'date', value_column: 'v' })).toThrow(/line 2: value "abc"/);
    expect(() => readCsvSeries('date,v\nsoon,1\n', { date_column: 'date', value_column: 'v' })).toThrow(SeriesFormatError);
    expect(() => readCsvSeries('', { date_column: 'date', value_column: 'v' })).toThrow(/no rows/);
  });
});

describe('readJsonSeries', () => {
  it('reads an array under a dotted path with custom keys', () => {
    const doc = JSON.stringify({
      data: {
        obs: [
          { d: '2024-01', v: 1 },
          { d: '2024-02', v: '2.5' },
          { d: '2024-03', v: null },
        ],
      },
    });
    expect(readJsonSeries(doc, { path: 'data.obs', date_column: 'd', value_column: 'v' })).toEqual([
      { date: '2024-01-01', value: 1 },
      { date: '2024-02-01', value: 2.5 },
    ]);
  });
  it('refuses non-JSON and a path that is not an array', () => {
    expect(() => readJsonSeries('<html>', {})).toThrow(/not JSON/);
    expect(() => readJsonSeries('{"a":1}', { path: 'a' })).toThrow(/expected an array/);
  });
});

describe('stepToMonthEnd', () => {
  it('gives the value in force at each month end', () => {
    const changes = [
      { date: '2024-01-15', value: 5 },
      { date: '2024-03-31', value: 4.75 },
      { date: '2024-04-02', value: 4.5 },
    ];
    expect(stepToMonthEnd(changes, '2024-05-10')).toEqual([
      { date: '2024-01-31', value: 5 },
      { date: '2024-02-29', value: 5 },
      { date: '2024-03-31', value: 4.75 },
      { date: '2024-04-30', value: 4.5 },
      { date: '2024-05-31', value: 4.5 },
    ]);
  });
});

describe('searchTerms and toFtsQuery', () => {
  it('keeps words only and quotes every one as a required FTS5 prefix term', () => {
    expect(searchTerms('Brent oil')).toEqual(['brent', 'oil']);
    expect(toFtsQuery(searchTerms('Brent oil')!)).toBe('"brent"* AND "oil"*');
    expect(toFtsQuery(searchTerms('title:"x" OR NEAR(a b) -c*')!)).toBe(
      '"title"* AND "x"* AND "or"* AND "near"* AND "a"* AND "b"* AND "c"*',
    );
    expect(searchTerms('!!! ***')).toBeNull();
  });
});
