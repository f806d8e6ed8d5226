/** jsonShapeProblem: depth and value bounds judged on raw UTF-8 bytes, strings skipped. */
import { describe, expect, it } from 'vitest';
import { jsonShapeProblem, MAX_JSON_DEPTH, MAX_JSON_VALUES } from '../../connector/src/offload/json-shape.js';

const check = (text: string, limits?: { maxDepth?: number; maxValues?: number }) => jsonShapeProblem(Buffer.from(text, 'utf8'), limits);

describe('jsonShapeProblem', () => {
  it('passes ordinary bodies, a full batch included', () => {
    expect(check('{"policy_number":"UKM-1000-0001","country":"UK","insurance_type":"motor"}')).toBeNull();
    const batch = {
      policies: Array.from({ length: 100 }, (_, i) => ({
        policy_number: `UKM-1000-${i}`,
        country: 'UK',
        insurance_type: 'motor',
        provider: 'Albion',
      })),
    };
    expect(check(JSON.stringify(batch))).toBeNull();
    expect(check('')).toBeNull();
    expect(check('42')).toBeNull();
  });
  it(`refuses nesting past ${MAX_JSON_DEPTH}, arrays and objects alike`, () => {
    expect(check('['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH))).toBeNull();
    expect(check('['.repeat(MAX_JSON_DEPTH + 1))).toBe(`The JSON body is nested more than ${MAX_JSON_DEPTH} levels deep.`);
    expect(check('{"a":'.repeat(MAX_JSON_DEPTH + 1))).toMatch(/nested more than/);
    // Closing brackets bring the depth back down: many shallow siblings are fine.
    expect(check(`[${'[[]],'.repeat(1000)}0]`)).toBeNull();
  });
  it(`refuses more than ${MAX_JSON_VALUES} values`, () => {
    expect(check(`[${'0,'.repeat(MAX_JSON_VALUES - 2)}0]`)).toBeNull();
    expect(check(`[${'0,'.repeat(MAX_JSON_VALUES)}0]`)).toMatch(/more than 10000 values/);
    expect(check(`[${'{},'.repeat(MAX_JSON_VALUES)}0]`)).toMatch(/more than 10000 values/);
  });
  it('does not count brackets or commas inside strings, escaped quotes included', () => {
    const s = JSON.stringify({ a: `${'['.repeat(1000)}"${','.repeat(20_000)}\\"\\\\${'{'.repeat(1000)}` });
    expect(check(s)).toBeNull();
    // An even run of backslashes before a quote ends the string: the brackets after it count.
    expect(check(`["\\\\\\\\"${',['.repeat(40)}`)).toMatch(/nested more than/);
  });
  it('is not fooled by multi-byte UTF-8 (no continuation byte is ASCII)', () => {
    expect(check(JSON.stringify({ a: '€'.repeat(1000) + '[' + '𝄞'.repeat(1000) }))).toBeNull();
  });
  it('an unterminated string ends the scan (JSON.parse refuses it later)', () => {
    expect(check('{"a":"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[')).toBeNull();
  });
  it('takes its bounds as options', () => {
    expect(check('[[[]]]', { maxDepth: 2 })).toMatch(/more than 2 levels/);
    expect(check('[1,2,3]', { maxValues: 2 })).toMatch(/more than 2 values/);
  });
});
