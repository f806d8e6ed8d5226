/**
 * Coverage details through the whole connector (upload -> job -> extraction process -> job result), and
 * in the OpenAPI document generated from the contract: an optional part of ExtractedFields.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZJobSchema, type TExtractedFields } from '../../shared/job.js';
import { buildOpenApiDocument } from '../../shared/openapi.js';
import { corpusPdf, corpusTruth } from '../extract/helpers.js';
import { pollUntil, startTestServer, type TestServer } from '../helpers/server.js';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer({ extraction: true });
});
afterAll(async () => srv.close());

async function extract(id: string, key: string): Promise<TExtractedFields> {
  const form = new FormData();
  form.append('file', new Blob([corpusPdf(id)], { type: 'application/pdf' }), `${id}.pdf`);
  const res = await fetch(`${srv.url}/api/v1/documents/extract`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: form,
  });
  expect(res.status).toBe(202);
  const accepted = (await res.json()) as { poll_url: string };
  const job = ZJobSchema.parse(await pollUntil(srv.url, accepted.poll_url, key, (b: { status: string }) => b.status !== 'pending', 80_000));
  expect(job.status).toBe('complete');
  return job.result as TExtractedFields;
}

describe('coverage details in an extraction job', () => {
  it('a German motor schedule: the cover level, normalised, with the printed wording and a confidence; the other fields as before', async () => {
    const { key } = await srv.key({ mode: 'test' });
    const result = await extract('002', key);
    const truth = corpusTruth('002') as unknown as { coverage: { motor_cover: string }; policy_number: string };
    expect(truth.coverage.motor_cover).toBe('comprehensive');
    expect(result.coverage).toEqual({
      motor_cover: { value: 'comprehensive', printed: expect.stringMatching(/Vollkasko/), confidence: expect.any(Number) },
    });
    expect(result.coverage!.motor_cover!.confidence).toBeGreaterThanOrEqual(0.9);
    expect(result.policy_number!.replace(/\s/g, '')).toBe(truth.policy_number.replace(/\s/g, ''));
    // Clients reading confidence per top-level field see no new keys there: coverage and the document type carry their own.
    expect(Object.keys(result.confidence).sort()).toEqual(
      Object.keys(result)
        .filter((k) => k !== 'confidence' && k !== 'coverage' && k !== 'document_type')
        .sort(),
    );
  }, 90_000);

  it('a French travel schedule: trip type and area', async () => {
    const { key } = await srv.key({ mode: 'test' });
    const result = await extract('006', key);
    expect(result.coverage).toMatchObject({
      trip_type: { value: 'single_trip' },
      region: { value: 'domestic', printed: expect.stringMatching(/France/) },
    });
  }, 90_000);
});

describe('the OpenAPI document', () => {
  it('describes coverage as an optional DocumentCoverage of ExtractedFields, with its enums', () => {
    const doc = buildOpenApiDocument() as unknown as {
      components: { schemas: Record<string, { properties: Record<string, any>; required?: string[] }> };
    };
    const fields = doc.components.schemas.ExtractedFields!;
    expect(fields.properties.coverage.$ref ?? fields.properties.coverage.allOf?.[0]?.$ref).toBe('#/components/schemas/DocumentCoverage');
    expect(fields.required ?? []).not.toContain('coverage');
    const cov = doc.components.schemas.DocumentCoverage!;
    expect(cov.properties.motor_cover.properties.value.enum).toEqual(['third_party', 'third_party_fire_theft', 'comprehensive']);
    expect(cov.properties.region.properties.value.enum).toEqual(['domestic', 'europe', 'worldwide_excluding_usa', 'worldwide']);
    expect(cov.properties.trip_type.required).toEqual(['value', 'confidence']);
    // The registry's Coverage of a verification result keeps its name and shape.
    expect(Object.keys(doc.components.schemas.Coverage!.properties)).toEqual(['start_date', 'end_date', 'registry_status']);
  });
});
