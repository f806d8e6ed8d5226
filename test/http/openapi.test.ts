import { validate } from '@readme/openapi-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../connector/src/app.js';
import { call, startTestServer, type TestServer } from '../helpers/server.js';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(async () => srv.close());

/** Every METHOD path the Express app serves, read from its router stack. */
function expressRoutes(app: ReturnType<typeof createApp>): string[] {
  const out: string[] = [];
  const walk = (stack: any[], prefix: string) => {
    for (const layer of stack) {
      if (layer.route) {
        for (const m of Object.keys(layer.route.methods)) out.push(`${m.toUpperCase()} ${prefix}${layer.route.path}`.replace(/:(\w+)/g, '{$1}'));
      } else if (layer.handle?.stack) {
        // Express 5 keeps the mount path on the layer's matcher; our routers mount at /api/v1 or /.
        const mount = layer.matchers?.[0]?.('/api/v1/x') ? '/api/v1' : '';
        walk(layer.handle.stack, prefix + mount);
      }
    }
  };
  walk((app as any).router.stack, '');
  return [...new Set(out)].sort();
}

describe('OpenAPI document', () => {
  it('is served at /api/v1/openapi.json and is a valid OpenAPI 3.1 document', async () => {
    const r = await call(srv.url, 'GET', '/api/v1/openapi.json');
    expect(r.status).toBe(200);
    expect(r.body.openapi).toBe('3.1.0');
    const result = await validate(structuredClone(r.body));
    expect(result.valid, JSON.stringify(result)).toBe(true);
  });
  it('documents exactly the routes the app serves', async () => {
    const r = await call(srv.url, 'GET', '/api/v1/openapi.json');
    const documented = Object.entries(r.body.paths as Record<string, object>)
      .flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`))
      .sort();
    expect(documented).toEqual(expressRoutes(createApp(srv.ctx)));
  });
  it('has the contract schemas as components', async () => {
    const r = await call(srv.url, 'GET', '/api/v1/openapi.json');
    expect(Object.keys(r.body.components.schemas)).toEqual(expect.arrayContaining(['VerifyRequest', 'VerificationResult', 'Insurer', 'ErrorBody', 'SyncErrorBody', 'Account']));
  });
});
