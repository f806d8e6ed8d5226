import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_SECRET_PREFIX,
  WebhookVerificationError,
  ZWebhookEventSchema,
  generateWebhookSecret,
  signWebhook,
  verifyWebhook,
} from '../../shared/webhooks.js';

// The Standard Webhooks spec's example secret.
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const KEY = Buffer.from('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'base64');
const NOW_S = 1_700_000_000;

/** One valid delivery; each test breaks one thing. */
function payload(over: { id?: string; timestampS?: number; body?: string; secret?: string } = {}) {
  const id = over.id ?? 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W';
  const timestampS = over.timestampS ?? NOW_S;
  const body = over.body ?? '{"type":"job.completed","created_at":"2026-01-01T00:00:00Z","data":{"job_id":"j1"}}';
  const headers: Record<string, string | undefined> = {
    'webhook-id': id,
    'webhook-timestamp': String(timestampS),
    'webhook-signature': signWebhook(over.secret ?? SECRET, id, timestampS, body),
  };
  return { id, timestampS, body, headers };
}

const verify = (p: ReturnType<typeof payload>, secret = SECRET) => verifyWebhook(secret, p.headers, p.body, { nowS: NOW_S });

describe('signWebhook', () => {
  it('is v1, + base64 HMAC-SHA256 of id.timestamp.body keyed with the decoded secret', () => {
    const expected = createHmac('sha256', KEY).update('msg_1.1614265330.{"test": 2432232314}').digest('base64');
    expect(signWebhook(SECRET, 'msg_1', 1614265330, '{"test": 2432232314}')).toBe(`v1,${expected}`);
  });

  it('matches the Standard Webhooks spec example signature', () => {
    expect(signWebhook(SECRET, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}')).toBe(
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    );
  });

  it('accepts the secret with or without the whsec_ prefix', () => {
    expect(signWebhook('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'a', 1, 'b')).toBe(signWebhook(SECRET, 'a', 1, 'b'));
  });

  it('refuses an empty secret as a plain error, not a verification failure', () => {
    expect(() => signWebhook('whsec_', 'a', 1, 'b')).toThrow('Webhook secret is empty');
  });
});

describe('generateWebhookSecret', () => {
  it('is whsec_ + base64 of 32 bytes from the random source', () => {
    const secret = generateWebhookSecret((n) => Buffer.alloc(n, 7));
    expect(secret).toBe(WEBHOOK_SECRET_PREFIX + Buffer.alloc(32, 7).toString('base64'));
    expect(Buffer.from(generateWebhookSecret().slice(6), 'base64')).toHaveLength(32);
  });

  it('produces a secret that signs and verifies', () => {
    const secret = generateWebhookSecret();
    const p = payload({ secret });
    expect(verify(p, secret)).toEqual(JSON.parse(p.body));
  });
});

describe('verifyWebhook', () => {
  it('returns the parsed body of a valid delivery', () => {
    expect(verify(payload())).toEqual({ type: 'job.completed', created_at: '2026-01-01T00:00:00Z', data: { job_id: 'j1' } });
  });

  it('verifies with the secret without its prefix', () => {
    expect(verify(payload(), 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')).toMatchObject({ type: 'job.completed' });
  });

  it('reads header names case-insensitively', () => {
    const p = payload();
    const headers = {
      'Webhook-Id': p.headers['webhook-id'],
      'WEBHOOK-TIMESTAMP': p.headers['webhook-timestamp'],
      'Webhook-Signature': p.headers['webhook-signature'],
    };
    expect(verifyWebhook(SECRET, headers, p.body, { nowS: NOW_S })).toMatchObject({ type: 'job.completed' });
  });

  it.each(['webhook-id', 'webhook-timestamp', 'webhook-signature'])('rejects a delivery without %s', (name) => {
    const p = payload();
    delete p.headers[name];
    expect(() => verify(p)).toThrow(WebhookVerificationError);
    expect(() => verify(p)).toThrow(`Missing required header(s): ${name}`);
  });

  it('rejects a tampered body', () => {
    const p = payload();
    p.body = p.body.replace('j1', 'j2');
    expect(() => verify(p)).toThrow(new WebhookVerificationError('No matching signature found'));
  });

  it('rejects a tampered id', () => {
    const p = payload();
    p.headers['webhook-id'] = 'msg_other';
    expect(() => verify(p)).toThrow('No matching signature found');
  });

  it('rejects the wrong secret', () => {
    expect(() => verify(payload(), generateWebhookSecret())).toThrow('No matching signature found');
  });

  it('rejects a timestamp older than the tolerance and accepts one at its edge', () => {
    expect(() => verify(payload({ timestampS: NOW_S - 301 }))).toThrow('Message timestamp too old');
    expect(verify(payload({ timestampS: NOW_S - 300 }))).toMatchObject({ type: 'job.completed' });
  });

  it('rejects a timestamp newer than the tolerance and accepts one at its edge', () => {
    expect(() => verify(payload({ timestampS: NOW_S + 301 }))).toThrow('Message timestamp too new');
    expect(verify(payload({ timestampS: NOW_S + 300 }))).toMatchObject({ type: 'job.completed' });
  });

  it('honours a custom tolerance', () => {
    const p = payload({ timestampS: NOW_S - 60 });
    expect(() => verifyWebhook(SECRET, p.headers, p.body, { nowS: NOW_S, toleranceS: 30 })).toThrow('Message timestamp too old');
  });

  it('rejects a timestamp that is not Unix seconds', () => {
    const p = payload();
    p.headers['webhook-timestamp'] = '2026-01-01T00:00:00Z';
    expect(() => verify(p)).toThrow('Invalid webhook-timestamp');
  });

  it('accepts any one matching signature among several (key rotation)', () => {
    const p = payload();
    const old = signWebhook(generateWebhookSecret(), p.id, p.timestampS, p.body);
    p.headers['webhook-signature'] = `${old} ${p.headers['webhook-signature']} v1,bm90IGEgc2lnbmF0dXJl`;
    expect(verify(p)).toMatchObject({ type: 'job.completed' });
  });

  it('ignores a signature of another version even if its bytes match', () => {
    const p = payload();
    const mac = p.headers['webhook-signature']!.slice(3);
    p.headers['webhook-signature'] = `v2,${mac} v1a,${mac}`;
    expect(() => verify(p)).toThrow('No matching signature found');
  });

  it('rejects a truncated signature', () => {
    const p = payload();
    p.headers['webhook-signature'] = p.headers['webhook-signature']!.slice(0, -4);
    expect(() => verify(p)).toThrow('No matching signature found');
  });

  it('joins a repeated signature header', () => {
    const p = payload();
    const headers = { ...p.headers, 'webhook-signature': ['v1,AAAA', p.headers['webhook-signature']!] };
    expect(verifyWebhook(SECRET, headers, p.body, { nowS: NOW_S })).toMatchObject({ type: 'job.completed' });
  });

  it('rejects a correctly signed body that is not JSON', () => {
    expect(() => verify(payload({ body: 'not json' }))).toThrow('Webhook body is not valid JSON');
  });
});

describe('ZWebhookEventSchema', () => {
  it('accepts each event type with an ISO datetime', () => {
    for (const type of WEBHOOK_EVENT_TYPES) {
      expect(ZWebhookEventSchema.parse({ type, created_at: '2026-01-01T00:00:00Z', data: { job_id: 'j1' } })).toEqual({
        type,
        created_at: '2026-01-01T00:00:00Z',
        data: { job_id: 'j1' },
      });
    }
  });

  it('rejects an unknown type, a non-ISO date and non-object data', () => {
    const ok = { type: 'job.completed', created_at: '2026-01-01T00:00:00Z', data: {} };
    expect(ZWebhookEventSchema.safeParse({ ...ok, type: 'job.started' }).success).toBe(false);
    expect(ZWebhookEventSchema.safeParse({ ...ok, created_at: '1 Jan 2026' }).success).toBe(false);
    expect(ZWebhookEventSchema.safeParse({ ...ok, data: [1] }).success).toBe(false);
  });
});
