/** Offload: a large body is read on its worker thread, with the result readJsonBody gives inline. */
import crypto from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { readJsonBody } from '../../connector/src/offload/body.js';
import { createOffload, OFF_THREAD_BYTES } from '../../connector/src/offload/index.js';

const offload = createOffload();
afterAll(() => offload.destroy());

const pdf = (size: number) => {
  const b = Buffer.alloc(size, 0x41);
  b.write('%PDF-1.7\n');
  return b;
};
const body = (value: unknown) => Buffer.from(JSON.stringify(value));

describe('readJsonBody', () => {
  it('decodes a document field and leaves the sha-256 of its text in the body', () => {
    const text = pdf(1000).toString('base64');
    const out = readJsonBody(body({ policy_number: 'X', document: text }), ['document']);
    expect(out).toEqual({
      ok: true,
      value: { policy_number: 'X', document: `sha256:${crypto.createHash('sha256').update(text).digest('hex')}` },
      documents: { document: { ok: true, value: pdf(1000) } },
    });
  });
  it('keeps a refusal for a document that is not a base64 PDF; leaves non-strings and other fields alone', () => {
    const out = readJsonBody(body({ document: 'not base64!', other: 'JVBERi0=' }), ['document']);
    expect(out.ok && out.documents.document).toMatchObject({ ok: false, error: 'invalid_document' });
    expect(out.ok && (out.value as { other: string }).other).toBe('JVBERi0=');
    expect(readJsonBody(body({ document: 42 }), ['document'])).toEqual({ ok: true, value: { document: 42 }, documents: {} });
    expect(readJsonBody(body([1]), ['document'])).toEqual({ ok: true, value: [1], documents: {} });
  });
});

describe('createOffload', () => {
  it('reads small bodies inline: no thread is started', async () => {
    expect(await offload.readBody(body({ a: [1, 2, 3] }))).toEqual({ ok: true, value: { a: [1, 2, 3] }, documents: {} });
    expect(offload.threads()).toBe(0);
  });
  it('reads a body over the threshold on its thread, with the inline result, the document moved back as a Buffer', async () => {
    const value = { policy_number: 'UKM-1000-0001', document: pdf(OFF_THREAD_BYTES).toString('base64') };
    const expected = readJsonBody(body(value), ['document']);
    const out = await offload.readBody(body(value), ['document']);
    expect(out).toEqual(expected);
    const doc = out.ok ? out.documents.document : undefined;
    expect(doc?.ok && Buffer.isBuffer(doc.value)).toBe(true);
    expect(offload.threads()).toBe(1);
  });
  it('refuses there as inline: too deep, not JSON', async () => {
    const deep = Buffer.from(`{"pad":"${' '.repeat(OFF_THREAD_BYTES)}","x":${'['.repeat(40)}${']'.repeat(40)}}`);
    expect(await offload.readBody(deep)).toEqual({ ok: false, message: 'The JSON body is nested more than 32 levels deep.' });
    expect(await offload.readBody(Buffer.from(`{"a":"${'x'.repeat(OFF_THREAD_BYTES)}`))).toEqual({
      ok: false,
      message: 'The request body is not valid JSON.',
    });
  });
  it('a small document in a large body comes back intact (copied, not moved out of the pool)', async () => {
    const small = pdf(100);
    const out = await offload.readBody(body({ pad: ' '.repeat(OFF_THREAD_BYTES), document: small.toString('base64') }), ['document']);
    expect(out.ok && out.documents.document).toEqual({ ok: true, value: small });
  });
});
