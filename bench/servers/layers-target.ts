/**
 * Bench target for bench/layers: the sync verify pipeline cut into layers, each on its own route
 * of one Express app, so the cost of every layer shows as a drop in requests/s. The app is served
 * as the connector serves its own (createHttpServer), so the layers are the connector's.
 */
import express from 'express';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../connector/src/config.js';
import { listen } from '../../connector/src/http/server.js';
import { createLogger } from '../../connector/src/logger.js';
import { startConnector } from '../../connector/src/start.js';
import { createApiKey } from '../../connector/src/auth/create-key.js';
import { requireKey } from '../../connector/src/http/auth.js';
import { createRateLimits } from '../../connector/src/http/rate-limit.js';
import { jsonBody } from '../../connector/src/http/json-body.js';
import { requestLog } from '../../connector/src/http/request-log.js';
import { runSyncVerification } from '../../connector/src/verify/run-sync.js';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'covercheck-layers-'));
const config = loadConfig({
  COVERCHECK_DB: path.join(dir, 'b.db'),
  COVERCHECK_RATE_LIMIT_KEY_PER_MIN: '10000000',
  COVERCHECK_RATE_LIMIT_IP_PER_MIN: '10000000',
});
const logger = createLogger('warn', fs.createWriteStream('/dev/null'));
// As main.ts starts it (its app is not served: the layers below are built from its parts).
const target = await startConnector({ config, logger, extractionThreads: 0, onWalSyncError: (err) => console.error(err) });
const { store, ctx } = target;
const test = await createApiKey(store, { mode: 'test', name: 't', scopes: ['verify'] });
const deps = { credits: store.credits, history: store.history, reference: ctx.reference, registry: ctx.registry, now: ctx.now };
const body = { policy_number: 'KFZ-5096-000001', country: 'DE', insurance_type: 'motor', provider: 'HDI Global SE' };
const fixed = await runSyncVerification(body, test.record, deps);
const limits = createRateLimits(config);
const app = express();
app.get('/hello', (_q, r) => {
  r.json({ hello: 'world' });
});
// The same 1.2 KB answer as verify, no logic.
app.post('/json', express.json(), (_q, r) => {
  r.json(fixed);
});
app.post('/log-json', requestLog(logger), express.json(), (_q, r) => {
  r.json(fixed);
});
app.post('/auth-json', requestLog(logger), requireKey(ctx, limits), limits.perKey, ...jsonBody(65536), (_q, r) => {
  r.json(fixed);
});
// The engine and input parsing with a sandbox key record, no auth and no charge.
app.post('/engine', express.json(), async (q, r) => {
  r.json(await runSyncVerification(q.body, test.record, deps));
});
const server = await listen(app, 0, '127.0.0.1');
process.stdout.write(JSON.stringify({ port: (server.address() as { port: number }).port, key: test.key }) + '\n');
process.on('SIGTERM', () => {
  server.close();
  void target.stop().then(() => {
    fs.rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  });
});
