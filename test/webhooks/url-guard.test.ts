import { describe, expect, it } from 'vitest';
import { addressClass, checkWebhookUrl, isPrivateAddress, type LookupAll } from '../../connector/src/webhooks/index.js';
import { ADDRESS_NOT_ALLOWED } from '../../connector/src/webhooks/url-guard.js';

/** A resolver that answers from a table and fails like getaddrinfo for anything else. */
function fakeLookup(table: Record<string, string[]>): LookupAll & { calls: string[] } {
  const calls: string[] = [];
  const lookup = async (hostname: string) => {
    calls.push(hostname);
    const addresses = table[hostname];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(lookup, { calls });
}

describe('isPrivateAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['100.64.0.1', 'shared (CGNAT)'],
    ['100.127.255.255', 'shared (CGNAT)'],
    ['0.0.0.0', 'unspecified ("this network")'],
    ['0.1.2.3', 'unspecified ("this network")'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fc00::1', 'unique-local (private)'],
    ['fd12:3456:789a::1', 'unique-local (private)'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf::1', 'link-local'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback (IPv4 in IPv6)'],
    ['::ffff:7f00:1', 'loopback (IPv4 in IPv6)'],
    ['::ffff:10.0.0.1', 'private (IPv4 in IPv6)'],
    ['::ffff:169.254.169.254', 'link-local (IPv4 in IPv6)'],
    ['::127.0.0.1', 'loopback (IPv4 in IPv6)'],
    ['::192.168.0.1', 'private (IPv4 in IPv6)'],
    ['64:ff9b::a00:1', 'private (IPv4 in IPv6)'],
    ['2002:7f00:1::', 'loopback (IPv4 in IPv6)'],
    // Ranges a hand-kept list misses, classed by ipaddr.js.
    ['::ffff:0:7f00:1', 'loopback (IPv4 in IPv6)'], // IPv4-translated (RFC 6145)
    ['::ffff:0:a00:1', 'private (IPv4 in IPv6)'],
    ['2001::1', 'Teredo tunnel'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo tunnel'],
    ['64:ff9b:1::a00:1', 'NAT64 (local-use)'],
    ['64:ff9b:1::808:808', 'NAT64 (local-use)'],
    ['192.0.2.1', 'reserved'], // TEST-NET-1
    ['198.51.100.7', 'reserved'], // TEST-NET-2
    ['203.0.113.9', 'reserved'], // TEST-NET-3
    ['2001:db8::1', 'reserved'], // IPv6 documentation
    ['192.88.99.1', 'reserved'], // 6to4 relay anycast
    ['2002:c058:6301::', 'reserved (IPv4 in IPv6)'], // 6to4 of 192.88.99.1
    ['198.18.0.1', 'reserved'],
    ['2001:2::1', 'reserved (benchmarking)'],
    ['192.0.0.9', 'reserved'],
    ['::ffff:192.0.2.1', 'reserved (IPv4 in IPv6)'],
    ['not-an-ip', 'invalid'],
  ])('%s is %s', (ip, kind) => {
    expect(addressClass(ip)).toBe(kind);
    expect(isPrivateAddress(ip)).toBe(true);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.215.14',
    '172.15.255.255',
    '172.32.0.0',
    '100.63.255.255',
    '100.128.0.0',
    '169.253.255.255',
    '192.167.255.255',
    '223.255.255.255',
    '11.0.0.0',
    '2606:4700:4700::1111',
    '2001:4860:4860::8888',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
    'fbff::1',
    '2a00::1',
  ])('%s is public', (ip) => {
    expect(addressClass(ip)).toBeNull();
    expect(isPrivateAddress(ip)).toBe(false);
  });
});

describe('checkWebhookUrl', () => {
  const lookup = fakeLookup({
    'hooks.example.com': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
    'mixed.example.com': ['93.184.215.14', '10.0.0.5'],
    'mapped.example.com': ['::ffff:127.0.0.1'],
    localhost: ['127.0.0.1', '::1'],
  });

  it('accepts an https URL whose every address is public', async () => {
    const result = await checkWebhookUrl('https://hooks.example.com/covercheck?x=1', { allowPrivate: false, lookup });
    expect(result.ok).toBe(true);
    expect(result.ok && result.url.href).toBe('https://hooks.example.com/covercheck?x=1');
  });

  it('refuses http', async () => {
    expect(await checkWebhookUrl('http://hooks.example.com/', { allowPrivate: true, lookup })).toEqual({
      ok: false,
      reason: 'webhook_url must use https',
    });
  });

  it('refuses other schemes and garbage', async () => {
    expect(await checkWebhookUrl('file:///etc/passwd', { allowPrivate: true, lookup })).toEqual({
      ok: false,
      reason: 'webhook_url must use https',
    });
    expect(await checkWebhookUrl('not a url', { allowPrivate: true, lookup })).toEqual({
      ok: false,
      reason: 'webhook_url is not a valid URL',
    });
  });

  it('refuses credentials in the URL', async () => {
    const reason = { ok: false, reason: 'webhook_url must not contain credentials' };
    expect(await checkWebhookUrl('https://user:pw@hooks.example.com/', { allowPrivate: false, lookup })).toEqual(reason);
    expect(await checkWebhookUrl('https://user@hooks.example.com/', { allowPrivate: false, lookup })).toEqual(reason);
  });

  it('refuses a host with one public and one private address', async () => {
    expect(await checkWebhookUrl('https://mixed.example.com/', { allowPrivate: false, lookup })).toEqual({
      ok: false,
      reason: ADDRESS_NOT_ALLOWED,
      detail: 'private: 10.0.0.5',
    });
  });

  it('refuses a host resolving to an IPv4-mapped loopback address', async () => {
    const result = await checkWebhookUrl('https://mapped.example.com/', { allowPrivate: false, lookup });
    expect(result).toEqual({ ok: false, reason: ADDRESS_NOT_ALLOWED, detail: 'loopback (IPv4 in IPv6): ::ffff:127.0.0.1' });
  });

  it('refuses IP literals in private ranges without a lookup, including shorthand forms', async () => {
    const calls = lookup.calls.length;
    expect(await checkWebhookUrl('https://127.1/', { allowPrivate: false, lookup })).toMatchObject({
      ok: false,
      detail: 'loopback: 127.0.0.1',
    });
    expect(await checkWebhookUrl('https://0x7f000001/', { allowPrivate: false, lookup })).toMatchObject({
      ok: false,
      detail: 'loopback: 127.0.0.1',
    });
    expect(await checkWebhookUrl('https://[::1]:8443/', { allowPrivate: false, lookup })).toMatchObject({
      ok: false,
      detail: 'loopback: ::1',
    });
    expect(await checkWebhookUrl('https://[::ffff:169.254.169.254]/', { allowPrivate: false, lookup })).toMatchObject({
      ok: false,
      detail: expect.stringContaining('link-local'),
    });
    expect(lookup.calls.length).toBe(calls);
  });

  it('refuses IP literals in tunnelled, translated and reserved ranges at submission, without a lookup', async () => {
    const calls = lookup.calls.length;
    for (const [url, kind] of [
      ['https://[::ffff:0:7f00:1]/', 'loopback (IPv4 in IPv6)'],
      ['https://[2001::53]/', 'Teredo tunnel'],
      ['https://[64:ff9b:1::a00:1]/', 'NAT64 (local-use)'],
      ['https://192.0.2.10/hook', 'reserved'],
      ['https://[2001:db8::10]/hook', 'reserved'],
      ['https://192.88.99.1/', 'reserved'],
    ] as const) {
      expect(await checkWebhookUrl(url, { allowPrivate: false, lookup }), url).toMatchObject({
        ok: false,
        reason: ADDRESS_NOT_ALLOWED,
        detail: expect.stringContaining(`${kind}:`),
      });
    }
    expect(lookup.calls.length).toBe(calls);
    expect((await checkWebhookUrl('https://93.184.215.14/hook', { allowPrivate: false, lookup })).ok).toBe(true);
  });

  it('refuses localhost unless private targets are allowed', async () => {
    expect(await checkWebhookUrl('https://localhost:8443/hook', { allowPrivate: false, lookup })).toMatchObject({ ok: false });
    const allowed = await checkWebhookUrl('https://localhost:8443/hook', { allowPrivate: true, lookup });
    expect(allowed.ok && allowed.url.port).toBe('8443');
    expect((await checkWebhookUrl('https://127.0.0.1/', { allowPrivate: true, lookup })).ok).toBe(true);
  });

  it('is not ok when the host does not resolve', async () => {
    expect(await checkWebhookUrl('https://nowhere.example.com/', { allowPrivate: true, lookup })).toEqual({
      ok: false,
      reason: 'webhook_url host nowhere.example.com could not be resolved (ENOTFOUND)',
    });
  });

  it('is not ok when the lookup returns no addresses', async () => {
    const empty: LookupAll = async () => [];
    expect(await checkWebhookUrl('https://hooks.example.com/', { allowPrivate: false, lookup: empty })).toEqual({
      ok: false,
      reason: 'webhook_url host hooks.example.com has no addresses',
    });
  });
});
