import { describe, expect, it } from 'vitest';
import { score, type Signals } from '../../connector/src/verify/score.js';

const agreed: Signals = { registry: 'agrees', inForce: true, insurer: 'authorised', provider: { kind: 'none' }, sanctioned: false };

describe('score', () => {
  it('registry agreement with an authorised insurer is verified at 0.85', () => {
    expect(score(agreed)).toEqual({ status: 'verified', confidence: 0.85 });
  });
  it('a matching provider raises confidence to 1', () => {
    expect(score({ ...agreed, provider: { kind: 'match', score: 1 } })).toEqual({ status: 'verified', confidence: 1 });
  });
  it('registry agreement alone (insurer not on the register) is still verified, just', () => {
    expect(score({ ...agreed, insurer: 'unknown' })).toEqual({ status: 'verified', confidence: 0.75 });
  });
  it('a provider unknown to a partial register, or naming an intermediary, moves nothing', () => {
    expect(score({ ...agreed, provider: { kind: 'unknown' } })).toEqual(score(agreed));
    expect(score({ ...agreed, provider: { kind: 'intermediary' } })).toEqual(score(agreed));
    expect(score({ ...agreed, provider: { kind: 'not_on_register' } }).confidence).toBe(0.75);
  });
  it('a provider naming another insurer makes it unverified', () => {
    expect(score({ ...agreed, provider: { kind: 'mismatch' } })).toEqual({ status: 'unverified', confidence: 0.5 });
  });
  it('an unauthorised insurer makes it unverified', () => {
    expect(score({ ...agreed, insurer: 'not_authorised' }).status).toBe('unverified');
  });
  it('a policy not in force is capped at 0.4 and unverified', () => {
    expect(score({ ...agreed, inForce: false })).toEqual({ status: 'unverified', confidence: 0.4 });
  });
  it('a sanctioned insurer is capped at 0.1', () => {
    expect(score({ ...agreed, provider: { kind: 'match', score: 1 }, sanctioned: true })).toEqual({
      status: 'unverified',
      confidence: 0.1,
    });
  });
  it('unknown to a covering registry is unverified, at most 0.3', () => {
    expect(score({ ...agreed, registry: 'not_found', provider: { kind: 'match', score: 1 } })).toEqual({
      status: 'unverified',
      confidence: 0.3,
    });
    expect(score({ ...agreed, registry: 'type_mismatch' }).status).toBe('unverified');
  });
  it('no coverage or an unavailable registry is inconclusive, at most 0.5', () => {
    expect(score({ ...agreed, registry: 'no_coverage', provider: { kind: 'match', score: 1 } })).toEqual({
      status: 'inconclusive',
      confidence: 0.45,
    });
    expect(score({ ...agreed, registry: 'unavailable' }).status).toBe('inconclusive');
  });
  it('never leaves 0..1', () => {
    const worst = score({
      registry: 'not_found',
      inForce: false,
      insurer: 'not_authorised',
      provider: { kind: 'mismatch' },
      sanctioned: true,
    });
    expect(worst.confidence).toBe(0);
  });
});
