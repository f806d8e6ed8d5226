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
      problem: {
        error: 'missing_required_fields',
        missing: ['policy_number', 'country', 'insurance_type'],
        detail: 'Missing required fields: policy_number, country, insurance_type',
      },
    });
  });
  it('rejects unsupported countries and types with their own codes', () => {
    expect(parsePolicyInput({ ...valid, country: 'ES' })).toMatchObject({ ok: false, problem: { error: 'unsupported_country' } });
    expect(parsePolicyInput({ ...valid, insurance_type: 'life' })).toMatchObject({
      ok: false,
      problem: { error: 'unsupported_insurance_type' },
    });
  });
  it('an unknown value keeps its spec code, and the message names the accepted codes and some accepted words', () => {
    expect(parsePolicyInput({ ...valid, country: ' Spain ' })).toEqual({
      ok: false,
      problem: {
        error: 'unsupported_country',
        detail: 'Unsupported country: Spain. Supported: UK, DE, FR (also names such as United Kingdom, Deutschland, France).',
      },
    });
    expect(parsePolicyInput({ ...valid, insurance_type: 'Life' })).toEqual({
      ok: false,
      problem: {
        error: 'unsupported_insurance_type',
        detail: 'Unsupported insurance type: Life. Supported: motor, travel, health (also words such as car, Reise, santé).',
      },
    });
  });
  it('rejects wrong types, unknown fields and non-objects', () => {
    expect(parsePolicyInput({ ...valid, policy_number: 123 })).toMatchObject({
      ok: false,
      problem: { error: 'invalid_request', detail: 'Field policy_number must be a string.' },
    });
    expect(parsePolicyInput({ ...valid, colour: 'red' })).toMatchObject({ ok: false, problem: { error: 'invalid_request' } });
    expect(parsePolicyInput([valid])).toMatchObject({ ok: false, problem: { error: 'invalid_request' } });
    expect(parsePolicyInput(null)).toMatchObject({ ok: false, problem: { error: 'invalid_request' } });
  });
  it('rejects over-long numbers and providers', () => {
    expect(parsePolicyInput({ ...valid, policy_number: 'A'.repeat(65) })).toMatchObject({
      ok: false,
      problem: { error: 'invalid_request' },
    });
    expect(parsePolicyInput({ ...valid, provider: 'A'.repeat(201) })).toMatchObject({ ok: false, problem: { error: 'invalid_request' } });
  });
});

describe('parsePolicyInput: countries and insurance types as staff type them (English, German, French)', () => {
  const countries: [string, string][] = [
    ['United Kingdom', 'UK'],
    ['great britain', 'UK'],
    ['U.K.', 'UK'],
    ['England', 'UK'],
    ['Scotland', 'UK'],
    ['Wales', 'UK'],
    ['Northern Ireland', 'UK'],
    ['Vereinigtes Königreich', 'UK'],
    ['Vereinigtes Koenigreich', 'UK'],
    ['Großbritannien', 'UK'],
    ['Grossbritannien', 'UK'],
    ['Schottland', 'UK'],
    ['Royaume-Uni', 'UK'],
    ['royaume uni', 'UK'],
    ['Grande-Bretagne', 'UK'],
    ['Écosse', 'UK'],
    ['Pays de Galles', 'UK'],
    ['Germany', 'DE'],
    ['Deutschland', 'DE'],
    ['DEUTSCHLAND', 'DE'],
    ['Allemagne', 'DE'],
    ['de', 'DE'],
    ['France', 'FR'],
    ['Frankreich', 'FR'],
    ['fr', 'FR'],
  ];
  for (const [typed, code] of countries) {
    it(`country "${typed}" is ${code}`, () => {
      expect(parsePolicyInput({ ...valid, country: typed })).toMatchObject({ ok: true, policy: { country: code } });
    });
  }
  const types: [string, string][] = [
    ['car', 'motor'],
    ['Auto', 'motor'],
    ['automobile', 'motor'],
    ['Vehicle', 'motor'],
    ['Kfz', 'motor'],
    ['Kfz-Haftpflicht', 'motor'],
    ['kfz haftpflicht', 'motor'],
    ['KFZ-HAFTPFLICHT', 'motor'],
    ['Kraftfahrzeug', 'motor'],
    ['Autoversicherung', 'motor'],
    ['voiture', 'motor'],
    ['Assurance auto', 'motor'],
    ['Travel', 'travel'],
    ['Reise', 'travel'],
    ['Reiseversicherung', 'travel'],
    ['Reiseruecktrittsversicherung', 'travel'],
    ['voyage', 'travel'],
    ['assurance voyage', 'travel'],
    ['health', 'health'],
    ['Medical', 'health'],
    ['PMI', 'health'],
    ['private medical', 'health'],
    ['Kranken', 'health'],
    ['Krankenversicherung', 'health'],
    ['santé', 'health'],
    ['SANTÉ', 'health'],
    ['sante', 'health'],
    ['Mutuelle', 'health'],
    ['complémentaire santé', 'health'],
  ];
  for (const [typed, type] of types) {
    it(`insurance type "${typed}" is ${type}`, () => {
      expect(parsePolicyInput({ ...valid, insurance_type: typed })).toMatchObject({ ok: true, policy: { insurance_type: type } });
    });
  }
  it('words are matched whole, never as a prefix or a part: card, Autobahn, Ireland and Deutsch are refused', () => {
    for (const t of ['card', 'Autobahn', 'cars insurance', 'Haftpflicht']) {
      expect(parsePolicyInput({ ...valid, insurance_type: t }), t).toMatchObject({
        ok: false,
        problem: { error: 'unsupported_insurance_type' },
      });
    }
    for (const c of ['Ireland', 'Deutsch', 'Franc', 'United', 'Britannia']) {
      expect(parsePolicyInput({ ...valid, country: c }), c).toMatchObject({ ok: false, problem: { error: 'unsupported_country' } });
    }
  });
  it('insurance_type and type agree when they name the same type in different words', () => {
    expect(parsePolicyInput({ ...valid, insurance_type: 'motor', type: 'Kfz' })).toMatchObject({
      ok: true,
      policy: { insurance_type: 'motor' },
    });
    expect(parsePolicyInput({ ...valid, insurance_type: 'Reise', type: 'car' })).toMatchObject({
      ok: false,
      problem: { error: 'invalid_request' },
    });
  });
});
