/**
 * Photos on POST /api/v1/documents/extract: a JPEG or PNG is told by its bytes, read as a one-page scan by the
 * extraction process, and held to the same limits as a PDF; anything else is refused at upload.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZJobSchema } from '../../shared/job.js';
import { asImageFile, drawPlain, pngBomb } from '../../scripts/procedural/technicalities/index.js';
import { pollUntil, startTestServer, type TestServer } from '../helpers/server.js';
import { UK_MOTOR } from '../helpers/simple-policies.js';

let srv: TestServer;

beforeAll(async () => {
  srv = await startTestServer({ extraction: true });
});
afterAll(async () => srv.close());

async function upload(data: Buffer, key: string, name: string, type: string) {
  const form = new FormData();
  form.append('file', new Blob([data], { type }), name);
  const res = await fetch(`${srv.url}/api/v1/documents/extract`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: form,
  });
  return { status: res.status, body: (await res.json()) as any };
}
const done = (b: any) => b.status !== 'pending';

describe('photos on the extraction route', () => {
  it('a JPEG photo of a certificate: 202, and the job completes with its fields; 1 credit kept', async () => {
    const { key, id } = await srv.key({ mode: 'live', credits: 5 });
    const jpeg = await asImageFile(await drawPlain(UK_MOTOR.drawing), 'jpeg');
    // Named and typed as a PDF: the bytes say what it is.
    const r = await upload(jpeg, key, 'certificate.pdf', 'application/pdf');
    expect(r.status).toBe(202);
    const job = ZJobSchema.parse(await pollUntil(srv.url, r.body.poll_url, key, done, 90_000));
    expect(job).toMatchObject({ status: 'complete', kind: 'extraction' });
    expect(job.result).toMatchObject({
      policy_number: UK_MOTOR.truth.policy_number,
      start_date: UK_MOTOR.truth.start_date,
      end_date: UK_MOTOR.truth.end_date,
      vehicle_registration: UK_MOTOR.truth.vehicle_registration,
    });
    expect((await srv.store.keys.get(id))!.balance).toBe(4);
  }, 120_000);

  it('a PNG declaring 100,000 x 100,000 pixels: the job fails with unreadable_document naming the limit; the credit comes back', async () => {
    const { key, id } = await srv.key({ mode: 'live', credits: 5 });
    const r = await upload(pngBomb(100_000, 100_000), key, 'photo.png', 'image/png');
    expect(r.status).toBe(202);
    const job = await pollUntil(srv.url, r.body.poll_url, key, done, 30_000);
    expect(job).toMatchObject({
      status: 'failed',
      error: { error: 'unreadable_document', code: 422, message: expect.stringContaining('the limit is 40 million pixels per image') },
    });
    expect((await srv.store.keys.get(id))!.balance).toBe(5);
  }, 60_000);

  it('a GIF, or a JPEG with a wrong first byte: 400 invalid_document at upload', async () => {
    const { key } = await srv.key({ mode: 'test' });
    const gif = await upload(Buffer.from('GIF89a\x01\x00\x01\x00', 'latin1'), key, 'photo.gif', 'image/gif');
    expect(gif).toMatchObject({
      status: 400,
      body: { error: 'invalid_document', message: expect.stringMatching(/not a PDF, JPEG or PNG/) },
    });
    const broken = await upload(Buffer.from([0xfe, 0xd8, 0xff, 0xe0, 0, 16]), key, 'photo.jpg', 'image/jpeg');
    expect(broken.status).toBe(400);
  });
});
