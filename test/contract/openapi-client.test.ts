/**
 * A generated client gets the rules the server applies. openapi-typescript (a generator we did not
 * write) turns the OpenAPI document into types; a small client is type-checked against them, with
 * `@ts-expect-error` on each request the server refuses, so a document that lets one through fails
 * the compile. Then the server itself is asked: for each structural rule, ajv's verdict on the
 * documented request schema agrees with the real server's answer.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../shared/openapi.js';
import { call, startTestServer, type TestServer } from '../helpers/server.js';

const doc = buildOpenApiDocument();

const CLIENT = `
import type { components, paths } from './schema';

type VerifyBody = paths['/api/v1/verify']['post']['requestBody'] extends { content: { 'application/json': infer B } } | undefined ? B : never;
type AsyncBody = NonNullable<paths['/api/v1/verify/async']['post']['requestBody']>['content']['application/json'];
type BatchBody = NonNullable<paths['/api/v1/verify/batch']['post']['requestBody']>['content']['application/json'];
type ListQuery = NonNullable<paths['/api/v1/datasets']['get']['parameters']['query']>;
type SeriesQuery = NonNullable<paths['/api/v1/datasets/{slug}/series']['get']['parameters']['query']>;
type WaitQuery = NonNullable<paths['/api/v1/jobs/{job_id}']['get']['parameters']['query']>;
type Result = components['schemas']['VerificationResult'];

// What the server accepts.
export const a: VerifyBody = { policy_number: 'UKM-1000-0001', country: 'UK', insurance_type: 'motor' };
export const b: VerifyBody = { policy_number: 'UKM-1000-0001', country: 'UK', type: 'motor', provider: 'Aviva' };
export const c: VerifyBody = { policy_number: 'UKM-1000-0001', country: 'UK', insurance_type: 'motor', type: 'motor' };
export const d: AsyncBody = { policy_number: 'UKM-1000-0001', country: 'UK', type: 'motor', webhook_url: 'https://hooks.example.com/x' };
export const e: BatchBody = { policies: [a, b] };
export const q: ListQuery = { q: 'motor', limit: 10, offset: 0, cadence: 'monthly' };
export const s: SeriesQuery = { limit: 100, direction: 'earliest' };
export const w: WaitQuery = { wait: 25 };

// What it refuses.
// @ts-expect-error insurance_type or its alias type is required
export const noType: VerifyBody = { policy_number: 'UKM-1000-0001', country: 'UK' };
// @ts-expect-error unknown fields are refused
export const unknownField: VerifyBody = { policy_number: 'UKM-1000-0001', country: 'UK', insurance_type: 'motor', colour: 'red' };
// @ts-expect-error document belongs to the async route only
export const syncDocument: VerifyBody = { policy_number: 'UKM-1000-0001', country: 'UK', insurance_type: 'motor', document: 'JVBERi0=' };
// @ts-expect-error policies is required
export const noPolicies: BatchBody = { webhook_url: 'https://hooks.example.com/x' };
// @ts-expect-error limit is an integer, not text
export const textLimit: ListQuery = { limit: '10' };
// @ts-expect-error direction is latest or earliest
export const sideways: SeriesQuery = { direction: 'sideways' };
// @ts-expect-error wait is an integer
export const textWait: WaitQuery = { wait: '5' };

// A response decoded as the spec has it: verification_sources holds the spec's three values only.
export function sources(r: Result): ('format' | 'fca_register' | 'registry')[] {
  return r.verification_sources;
}
// @ts-expect-error sanctions is named in checks[], never in verification_sources
export const notASource: Result['verification_sources'][number] = 'sanctions';

// A small client: typed request in, typed result out.
export async function verify(base: string, key: string, body: VerifyBody): Promise<Result> {
  const res = await fetch(base + '/api/v1/verify', { method: 'POST', headers: { authorization: 'Bearer ' + key, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return (await res.json()) as Result;
}
`;

describe('a client generated from the OpenAPI document (openapi-typescript)', () => {
  it('type-checks every request the server accepts, and refuses (@ts-expect-error) every one it refuses', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'covercheck-client-'));
    try {
      fs.writeFileSync(path.join(dir, 'schema.d.ts'), astToString(await openapiTS(doc as never)));
      fs.writeFileSync(path.join(dir, 'client.ts'), CLIENT);
      const program = ts.createProgram([path.join(dir, 'client.ts')], {
        strict: true,
        noEmit: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.ESNext,
        moduleResolution: ts.ModuleResolutionKind.Bundler,
        lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
        skipLibCheck: true,
      });
      const problems = ts
        .getPreEmitDiagnostics(program)
        .map(
          (d) =>
            `${d.file ? path.basename(d.file.fileName) + ':' + (d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1) + ' ' : ''}${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`,
        );
      // An unused @ts-expect-error is itself an error: a refused request the types let through fails here.
      expect(problems).toEqual([]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('request bodies the server refuses unknown fields in are documented with additionalProperties: false', () => {
    type S = { additionalProperties?: unknown; anyOf?: S[]; properties?: Record<string, S> };
    const schemas = (doc.components?.schemas ?? {}) as Record<string, S>;
    const bodies: [string, S][] = ['VerifyRequest', 'AsyncVerifyRequest', 'BatchRequest', 'ScheduleRequest', 'SheetBindingRequest'].map(
      (n) => [n, schemas[n]!],
    );
    // sheet_target is inlined where it is used.
    bodies.push(['BatchRequest.sheet_target', schemas.BatchRequest!.properties!.sheet_target!]);
    for (const [name, s] of bodies) {
      expect(s, name).toBeDefined();
      for (const o of s.anyOf ?? [s]) expect(o.additionalProperties, name).toBe(false);
    }
  });
});

describe('the documented request schemas and the server agree', () => {
  let srv: TestServer;
  let key: string;
  beforeAll(async () => {
    srv = await startTestServer();
    key = (await srv.key({ mode: 'test' })).key;
  });
  afterAll(async () => srv.close());

  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema({ $id: 'doc', components: doc.components });
  const validVerify = ajv.compile({ $ref: 'doc#/components/schemas/VerifyRequest' });

  const base = { policy_number: 'UKM-1000-0001', country: 'UK' };
  const cases: [string, Record<string, unknown>][] = [
    ['insurance_type', { ...base, insurance_type: 'motor' }],
    ['its alias type', { ...base, type: 'motor' }],
    ['both, agreeing', { ...base, insurance_type: 'motor', type: 'motor' }],
    ['neither', { ...base }],
    ['an unknown field', { ...base, insurance_type: 'motor', colour: 'red' }],
    ['a document on the sync route', { ...base, insurance_type: 'motor', document: 'JVBERi0=' }],
    ['an empty policy number', { ...base, policy_number: '', insurance_type: 'motor' }],
    ['a 65-character policy number', { ...base, policy_number: 'A1'.repeat(32) + 'B', insurance_type: 'motor' }],
    ['a 201-character provider', { ...base, insurance_type: 'motor', provider: 'p'.repeat(201) }],
    ['a number where text goes', { ...base, insurance_type: 'motor', provider: 42 }],
  ];
  for (const [name, body] of cases) {
    it(`POST /api/v1/verify with ${name}: the schema's verdict is the server's`, async () => {
      const r = await call(srv.url, 'POST', '/api/v1/verify', { key, body });
      expect(r.status === 200, `server answered ${r.status} ${JSON.stringify(r.body)}`).toBe(validVerify(body));
    });
  }

  const listQuery = (doc.paths?.['/api/v1/datasets']?.get?.parameters ?? []) as { name: string; schema: object }[];
  const validParam = (name: string) => ajv.compile(listQuery.find((p) => p.name === name)!.schema);
  for (const [param, raw, asNumber] of [
    ['limit', '20', 20],
    ['limit', '0', 0],
    ['limit', '201', 201],
    ['offset', '100000', 100000],
    ['offset', '100001', 100001],
  ] as const) {
    it(`GET /api/v1/datasets?${param}=${raw}: the documented integer bounds are the server's`, async () => {
      const r = await call(srv.url, 'GET', `/api/v1/datasets?${param}=${raw}`, {});
      expect(r.status === 200, `server answered ${r.status}`).toBe(validParam(param)(asNumber));
    });
  }
});
