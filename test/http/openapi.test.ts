/**
 * The OpenAPI document is the route table (shared/routes/): it is served, valid OpenAPI 3.1, lists
 * exactly the table's routes, and each route carries the errors and headers its contract implies.
 */
import { validate } from '@readme/openapi-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeHandlers } from '../../connector/src/routes/index.js';
import { ROUTES, impliedErrors, type RouteContract } from '../../shared/routes/index.js';
import { call, startTestServer, type TestServer } from '../helpers/server.js';

let srv: TestServer;
let doc: any;
beforeAll(async () => {
  srv = await startTestServer({ workers: false });
  doc = (await call(srv.url, 'GET', '/api/v1/openapi.json')).body;
});
afterAll(async () => srv.close());

const table = Object.values(ROUTES) as RouteContract[];
const operationOf = (route: RouteContract) => doc.paths[route.path.replace(/:(\w+)/g, '{$1}')]?.[route.method];

describe('OpenAPI document', () => {
  it('is served at /api/v1/openapi.json and is a valid OpenAPI 3.1 document', async () => {
    const r = await call(srv.url, 'GET', '/api/v1/openapi.json');
    expect(r.status).toBe(200);
    expect(r.body.openapi).toBe('3.1.0');
    const result = await validate(structuredClone(r.body));
    expect(result.valid, JSON.stringify(result)).toBe(true);
  });

  it('documents exactly the routes of the table, and the connector has handlers for exactly those', () => {
    const documented = Object.entries(doc.paths as Record<string, object>)
      .flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`))
      .sort();
    expect(documented).toEqual(table.map((r) => `${r.method.toUpperCase()} ${r.path.replace(/:(\w+)/g, '{$1}')}`).sort());
    expect(Object.keys(routeHandlers(srv.ctx)).sort()).toEqual(Object.keys(ROUTES).sort());
  });

  it('gives each route the statuses its contract implies and the ones it declares, and its path parameters', () => {
    for (const route of table) {
      const op = operationOf(route);
      const name = `${route.method} ${route.path}`;
      expect(Object.keys(op.responses).sort(), name).toEqual(Object.keys({ ...impliedErrors(route), ...route.responses }).sort());
      const inPath = (op.parameters ?? []).filter((p: any) => p.in === 'path').map((p: any) => p.name);
      expect(inPath, name).toEqual([...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]));
    }
  });

  it('derives the standard errors from the flags: scope 403, idempotent POSTs the header with 409/422, bodies 413/415, keys 401, limits 429 with Retry-After', () => {
    const statuses = (name: keyof typeof ROUTES) => Object.keys(operationOf(ROUTES[name]).responses);
    const header = (name: keyof typeof ROUTES) =>
      (operationOf(ROUTES[name]).parameters ?? []).some((p: any) => p.in === 'header' && p.name === 'Idempotency-Key');
    expect(statuses('verify')).toEqual(expect.arrayContaining(['401', '403', '409', '413', '415', '422', '429', '500']));
    expect(header('verify')).toBe(true);
    // multipart: no replay of a stream; unstored: the header is ignored; GET: nothing to repeat.
    for (const name of ['extract', 'bindingCreate', 'job'] as const) {
      expect(header(name), name).toBe(false);
      expect(statuses(name), name).not.toContain('409');
    }
    expect(statuses('extract')).toEqual(expect.arrayContaining(['403', '413', '415']));
    expect(statuses('account')).not.toContain('403');
    expect(statuses('account')).not.toContain('413');
    expect(statuses('datasetList')).toEqual(expect.arrayContaining(['401', '403', '429']));
    expect(statuses('health')).not.toContain('429');
    expect(operationOf(ROUTES.account).responses['429'].headers['Retry-After']).toBeDefined();
    expect(operationOf(ROUTES.account).security).toEqual([{ bearerAuth: [] }]);
    expect(operationOf(ROUTES.datasetList).security).toEqual([{}, { bearerAuth: [] }]);
    expect(operationOf(ROUTES.health).security).toBeUndefined();
  });

  it('has the contract schemas as components', () => {
    expect(Object.keys(doc.components.schemas)).toEqual(
      expect.arrayContaining(['VerifyRequest', 'VerificationResult', 'Insurer', 'ErrorBody', 'SyncErrorBody', 'Account']),
    );
  });
});
