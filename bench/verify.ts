/**
 * bench/verify: POST /api/v1/verify against a bare Express hello route, same process, same run.
 * Prints requests/s of each, the ratio, and p50/p99; then p99 of verify at half its peak rate.
 * Targets (issue 2): ratio >= 0.8, p99 < 5 ms at half the peak rate.
 */
import { drive, fmt, startTarget } from './lib.js';

interface TargetInfo {
  connectorPort: number;
  barePort: number;
  liveKey: string;
  testKey: string;
}

export async function benchVerify(opts: { durationS?: number } = {}): Promise<Record<string, number>> {
  const durationS = opts.durationS ?? 8;
  const { info, stop } = await startTarget<TargetInfo>('bench/servers/verify-target.ts');
  try {
    const verifyLoad = (rate?: number) => ({
      url: `http://127.0.0.1:${info.connectorPort}/api/v1/verify`,
      method: 'POST' as const,
      headers: { authorization: `Bearer ${info.liveKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ policy_number: 'KFZ-5096-000001', country: 'DE', insurance_type: 'motor', provider: 'HDI Global SE' }),
      durationS,
      ...(rate ? { overallRate: rate } : {}),
    });
    // Warm both (JIT, SQLite page cache), then measure.
    await drive({ url: `http://127.0.0.1:${info.barePort}/hello`, durationS: 2 });
    await drive({ ...verifyLoad(), durationS: 2 });
    const bare = await drive({ url: `http://127.0.0.1:${info.barePort}/hello`, durationS });
    const verify = await drive(verifyLoad());
    const half = await drive({ ...verifyLoad(Math.floor(verify.rps / 2)), connections: 10 });
    const ratio = verify.rps / bare.rps;
    console.log('bench/verify (autocannon, 10 connections, live key charged each call)');
    console.log(`  bare express GET /hello   ${fmt(bare.rps, 0).padStart(7)} req/s   p50 ${bare.p50} ms   p99 ${bare.p99} ms`);
    console.log(`  POST /api/v1/verify       ${fmt(verify.rps, 0).padStart(7)} req/s   p50 ${verify.p50} ms   p99 ${verify.p99} ms   non-2xx ${verify.non2xx}`);
    console.log(`  ratio verify/bare         ${fmt(ratio, 2)}   (target >= 0.8)`);
    console.log(`  at half peak (${Math.floor(verify.rps / 2)} req/s): p50 ${half.p50} ms   p99 ${half.p99} ms   (target p99 < 5 ms)   non-2xx ${half.non2xx}`);
    if (verify.non2xx > 0 || half.non2xx > 0) console.log('  WARNING: non-2xx answers during the run; figures are not valid');
    return { bare_rps: bare.rps, verify_rps: verify.rps, ratio, verify_p99: verify.p99, half_rate_p99: half.p99 };
  } finally {
    await stop();
  }
}
