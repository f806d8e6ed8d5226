/**
 * bench/verify: POST /api/v1/verify against a bare Express hello route, same process, same run.
 * Prints requests/s of each, the ratio, and p50/p99; then p99 of verify at half its peak rate.
 * Targets (issue 2): ratio >= 0.8, p99 < 5 ms at half the peak rate.
 *
 * The bare route is a default Express app (`app.listen`). The connector is served through
 * createHttpServer, which takes most of Express's own cost away (connector/src/http/server.ts), so
 * the bench also measures the hello route served that way and prints verify's ratio to it: that
 * one says what verify's own work costs, the first what the connector costs against plain Express.
 */
import { drive, fmt, startTarget } from './lib.js';
import { pacedLoad } from './paced.js';

interface TargetInfo {
  connectorPort: number;
  barePort: number;
  likeConnectorPort: number;
  liveKey: string;
  testKey: string;
}

export async function benchVerify(opts: { durationS?: number } = {}): Promise<Record<string, number>> {
  const durationS = opts.durationS ?? 8;
  const { info, stop } = await startTarget<TargetInfo>('bench/servers/verify-target.ts');
  try {
    const verifyLoad = (rate?: number, key = info.liveKey) => ({
      url: `http://127.0.0.1:${info.connectorPort}/api/v1/verify`,
      method: 'POST' as const,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ policy_number: 'KFZ-5096-000001', country: 'DE', insurance_type: 'motor', provider: 'HDI Global SE' }),
      durationS,
      ...(rate ? { overallRate: rate } : {}),
    });
    // Warm both (JIT, SQLite page cache), then measure.
    await drive({ url: `http://127.0.0.1:${info.barePort}/hello`, durationS: 2 });
    await drive({ url: `http://127.0.0.1:${info.likeConnectorPort}/hello`, durationS: 2 });
    await drive({ ...verifyLoad(), durationS: 2 });
    const bare = await drive({ url: `http://127.0.0.1:${info.barePort}/hello`, durationS });
    const likeConnector = await drive({ url: `http://127.0.0.1:${info.likeConnectorPort}/hello`, durationS });
    const verify = await drive(verifyLoad());
    const sandbox = await drive(verifyLoad(undefined, info.testKey));
    const halfRate = Math.floor(verify.rps / 2);
    const { overallRate: _r, ...paced } = verifyLoad();
    const half = await pacedLoad({ ...paced, rate: halfRate, durationS });
    const bareHalf = await pacedLoad({ url: `http://127.0.0.1:${info.barePort}/hello`, rate: halfRate, durationS });
    const ratio = verify.rps / bare.rps;
    console.log('bench/verify (autocannon, 10 connections, live key charged each call)');
    console.log(`  bare express GET /hello   ${fmt(bare.rps, 0).padStart(7)} req/s   p50 ${bare.p50} ms   p99 ${bare.p99} ms`);
    console.log(`  POST /api/v1/verify       ${fmt(verify.rps, 0).padStart(7)} req/s   p50 ${verify.p50} ms   p99 ${verify.p99} ms   non-2xx ${verify.non2xx}`);
    console.log(`  POST /api/v1/verify (sandbox key: no charge written) ${fmt(sandbox.rps, 0)} req/s   p50 ${sandbox.p50} ms   p99 ${sandbox.p99} ms`);
    console.log(`  ratio verify/bare         ${fmt(ratio, 2)}   (target >= 0.8)`);
    console.log(`  the hello route served as the connector is (createHttpServer) ${fmt(likeConnector.rps, 0)} req/s   p50 ${likeConnector.p50} ms   p99 ${likeConnector.p99} ms`);
    console.log(`  ratio verify/that route   ${fmt(verify.rps / likeConnector.rps, 2)}   (verify's own work against the same serving)`);
    console.log(`  paced at half the verify peak, ${halfRate} req/s (open loop, latency from send):`);
    console.log(`    POST /api/v1/verify     p50 ${half.p50} ms   p90 ${half.p90} ms   p99 ${half.p99} ms   max ${half.max} ms   (target p99 < 5 ms)   failed ${half.failed}`);
    console.log(`    bare express GET /hello p50 ${bareHalf.p50} ms   p90 ${bareHalf.p90} ms   p99 ${bareHalf.p99} ms   max ${bareHalf.max} ms`);
    if (verify.non2xx > 0 || half.failed > 0) console.log('  WARNING: non-2xx answers during the run; figures are not valid');
    return { bare_rps: bare.rps, like_connector_rps: likeConnector.rps, verify_rps: verify.rps, sandbox_rps: sandbox.rps, ratio, verify_p99: verify.p99, half_rate_p99: half.p99, bare_half_rate_p99: bareHalf.p99 };
  } finally {
    await stop();
  }
}
