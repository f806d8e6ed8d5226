/**
 * bench/layers: where the sync verify budget goes. Each layer of the pipeline on its own route
 * (same process, same run), reported as requests/s and as a ratio to a bare GET /hello.
 */
import { drive, fmt, startTarget } from './lib.js';

const LAYERS: [string, string][] = [
  ['/hello', 'bare GET /hello'],
  ['/json', 'POST + JSON parse + the 1.2 KB verify answer'],
  ['/log-json', '+ request log'],
  ['/auth-json', '+ auth, rate limit, JSON body checks'],
  ['/engine', 'input parsing + engine, no auth, no charge'],
];

export async function benchLayers(opts: { durationS?: number } = {}): Promise<Record<string, number>> {
  const { info, stop } = await startTarget<{ port: number; key: string }>('bench/servers/layers-target.ts');
  try {
    const body = JSON.stringify({ policy_number: 'KFZ-5096-000001', country: 'DE', insurance_type: 'motor', provider: 'HDI Global SE' });
    const headers = { authorization: `Bearer ${info.key}`, 'content-type': 'application/json' };
    const out: Record<string, number> = {};
    for (const [route] of LAYERS) {
      const get = route === '/hello';
      await drive({
        url: `http://127.0.0.1:${info.port}${route}`,
        method: get ? 'GET' : 'POST',
        headers,
        ...(get ? {} : { body }),
        durationS: 1,
      });
      out[route] = (
        await drive({
          url: `http://127.0.0.1:${info.port}${route}`,
          method: get ? 'GET' : 'POST',
          headers,
          ...(get ? {} : { body }),
          durationS: opts.durationS ?? 5,
        })
      ).rps;
    }
    console.log('bench/layers (autocannon, 10 connections; ratio to bare GET /hello)');
    for (const [route, label] of LAYERS)
      console.log(`  ${label.padEnd(46)} ${fmt(out[route]!, 0).padStart(7)} req/s   ${fmt(out[route]! / out['/hello']!, 2)}`);
    return out;
  } finally {
    await stop();
  }
}
