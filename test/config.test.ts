/** loadConfig (connector/src/config.ts): variables in, the Config the code uses out; bad values named, all at once. */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../connector/src/config.js';

describe('loadConfig', () => {
  it('shapes the variables: units converted, derived values filled in, overrides last', () => {
    const c = loadConfig({
      PORT: '99',
      COVERCHECK_JSON_LIMIT_KB: '2',
      COVERCHECK_DOCUMENT_QUOTA_MB: '3',
      COVERCHECK_FCA_API_KEY: 'k',
      COVERCHECK_FCA_API_EMAIL: 'a@b.c',
      COVERCHECK_FCA_API_URL: 'https://fca.example/x//',
    });
    expect(c).toMatchObject({
      port: 99,
      jsonLimitBytes: 2048,
      documents: { quotaBytes: { live: 3 * 1024 * 1024 } },
      portal: { publicUrl: 'http://localhost:99' },
      redis: null,
    });
    expect(c.fcaRegister).toEqual({
      baseUrl: 'https://fca.example/x',
      email: 'a@b.c',
      key: 'k',
      cacheTtlMs: 86_400_000,
      timeoutMs: 2000,
      perSecond: 5,
    });
    expect(loadConfig({ COVERCHECK_REGISTRY_UPSTREAMS: 'UK=https://a.example/;fr=http://b.example' }).registry.upstreams).toEqual({
      UK: 'https://a.example',
      FR: 'http://b.example',
    });
    expect([
      loadConfig({}).trustProxy,
      loadConfig({ COVERCHECK_TRUST_PROXY: '2' }).trustProxy,
      loadConfig({ COVERCHECK_TRUST_PROXY: 'loopback' }).trustProxy,
    ]).toEqual([false, 2, 'loopback']);
    expect(loadConfig({ COVERCHECK_DATABASE_URL: 'postgres://u:p@h:5432/d' }).documents.diskGuardPath).toBeNull();
    expect(loadConfig({}, { port: 1 }).port).toBe(1);
  });

  it('names every bad variable at once, one line each', () => {
    expect(() => loadConfig({ PORT: 'x', COVERCHECK_DEMO: 'maybe', COVERCHECK_WORKERS: '65', COVERCHECK_PORTAL_SECRET: 'short' })).toThrow(
      'Invalid configuration:\n' +
        '  PORT: Invalid input: expected number, received NaN\n' +
        '  COVERCHECK_DEMO: Invalid option: expected one of "0"|"1"|"true"|"false"|"yes"|"no"\n' +
        '  COVERCHECK_WORKERS: Too big: expected number to be <=64\n' +
        '  COVERCHECK_PORTAL_SECRET: must be at least 32 characters (e.g. openssl rand -hex 32)',
    );
  });

  it('a rule across variables throws its own message, naming them', () => {
    expect(() => loadConfig({ COVERCHECK_FCA_API_KEY: 'k' })).toThrow(/^COVERCHECK_FCA_API_EMAIL and COVERCHECK_FCA_API_KEY: set both/);
    expect(() => loadConfig({ COVERCHECK_REGISTRY_UPSTREAMS: 'XX=https://a' })).toThrow(
      /^COVERCHECK_REGISTRY_UPSTREAMS: "XX=https:\/\/a" is not COUNTRY=URL/,
    );
    expect(() => loadConfig({ COVERCHECK_BODY_BUDGET_MB: '30', COVERCHECK_BODY_BUDGET_PER_CLIENT_MB: '40' })).toThrow(
      /^COVERCHECK_BODY_BUDGET_PER_CLIENT_MB: must not be more than COVERCHECK_BODY_BUDGET_MB$/,
    );
  });
});
