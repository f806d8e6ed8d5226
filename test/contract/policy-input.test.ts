import { describe, expect, it } from 'vitest';
import { parsePolicyInput } from '../../shared/policy.js';

const valid = { policy_number: 'UKM-1000-0001', country: 'UK', insurance_type: 'motor' };

describe('parsePolicyInput', () => {
  it('accepts a valid policy and normalises country and type case', () => {
    expect(parsePolicyInput({ ...valid, country: 'uk', insurance_type: 'Motor', provider: ' Albion ' })).toEqual({
      ok: true,
      policy: { policy_number: 'UKM-1000-0001', country: 'UK', insurance_type: 'motor', provider: 'Albion' },
    });
  });
  it('accepts type as an alias of insurance_type (spec 7 rule 2)', () => {
    const { insurance_type: _t, ...rest } = valid;
    expect(parsePolicyInput({ ...rest, type: 'travel' })).toMatchObject({ ok: true, policy: { insurance_type: 'travel' } });
  });
  it('refuses insurance_type and type that disagree', () => {
    expect(parsePolicyInput({ ...valid, type: 'travel' })).toMatchObject({ ok: false, problem: { error: 'invalid_request' } });
  });
  it('accepts GB as UK', () => {
    expect(parsePolicyInput({ ...valid, country: 'gb' })).toMatchObject({ ok: true, policy: { country: 'UK' } });
  });
  it('names every missing field at once, blank strings included', () => {
    expect(parsePolicyInput({ country: ' ' })).toEqual({
      ok: false,
      problem: { error: 'missing_required_fields', missing: ['policy_number', 'country', 'insurance_type'], detail: 'Missing required fields: policy_number, country, insurance_type' },
    });
  });
  it('rejects unsupported countries and types with their own codes', () => {
    expect(parsePolicyInput({ ...valid, country: 'ES' })).toMatchObject({ ok: false, problem: { error: 'unsupported_country', detail: 'Unsupported country: ES. Supported: UK, DE, FR.' } });
    expect(parsePolicyInput({ ...valid, insurance_type: 'life' })).toMatchObject({ ok: false, problem: { error: 'unsupported_insurance_type' } });
  });
  it('rejects wrong types, unknown fields and non-objects', () => {
    expect(parsePolicyInput({ ...valid, policy_number: 123 })).toMatchObject({ ok: false, problem: { error: 'invalid_request', detail: 'Field policy_number must be a string.' } });
    expect(parsePolicyInput({ ...valid, colour: 'red' })).toMatchObject({ ok: false, problem: { error: 'invalid_request' } });
    expect(parsePolicyInput([valid])).toMatchObject({ ok: false, problem: { error: 'invalid_request' } });
    expect(parsePolicyInput(null)).toMatchObject({ ok: false, problem: { error: 'invalid_request' } });
  });
  it('rejects over-long numbers and providers', () => {
    expect(parsePolicyInput({ ...valid, policy_number: 'A'.repeat(65) })).toMatchObject({ ok: false, problem: { error: 'invalid_request' } });
    expect(parsePolicyInput({ ...valid, provider: 'A'.repeat(201) })).toMatchObject({ ok: false, problem: { error: 'invalid_request' } });
  });
});
