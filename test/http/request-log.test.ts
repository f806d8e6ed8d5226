/** redactUrl: secret query parameters by their decoded name, and key-shaped strings anywhere. */
import { describe, expect, it } from 'vitest';
import { redactUrl } from '../../connector/src/http/request-log.js';

describe('redactUrl', () => {
  it.each([
    ['/portal/activate?token=abc', '/portal/activate?token=[redacted]'],
    // The query parser decodes names, so these are the token parameter too.
    ['/portal/activate?%74oken=abc', '/portal/activate?%74oken=[redacted]'],
    ['/portal/activate?to%6Ben=abc&x=1', '/portal/activate?to%6Ben=[redacted]&x=1'],
    ['/portal/activate?%54%4F%4B%45%4E=abc', '/portal/activate?%54%4F%4B%45%4E=[redacted]'],
    ['/portal/activate?+token+=abc', '/portal/activate?+token+=[redacted]'],
    ['/x?a=1&api_key=abc&key=def&b=2', '/x?a=1&api_key=[redacted]&key=[redacted]&b=2'],
    ['/x?token', '/x?token'],
    ['/x?tokens=abc&%ZZ=1', '/x?tokens=abc&%ZZ=1'],
  ])('%s -> %s', (url, logged) => {
    expect(redactUrl(url)).toBe(logged);
  });
  it('redacts an API key pasted into a path or a search term', () => {
    const key = `pk_live_${'A1b2'.repeat(11)}`;
    expect(redactUrl(`/api/v1/jobs/${key}`)).toBe('/api/v1/jobs/pk_live_[redacted]');
    expect(redactUrl(`/api/v1/datasets?q=${key.replace('live', 'test')}`)).toBe('/api/v1/datasets?q=pk_test_[redacted]');
  });
  it('leaves ordinary URLs alone', () => {
    expect(redactUrl('/api/v1/datasets?q=motor&limit=5')).toBe('/api/v1/datasets?q=motor&limit=5');
    expect(redactUrl('/api/v1/verify')).toBe('/api/v1/verify');
  });
});
