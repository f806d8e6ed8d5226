/**
 * The registry chain for a country: our own table's real rows first; when they do not hold the number
 * and an upstream is configured for the country, the upstream's answer decides. Sandbox keys get the
 * demo rows of our own table and nothing more; live keys never see a demo row (docs/data-sources.md).
 */
import type { TCountry } from '../../../../shared/policy.js';
import type { Limiters } from '../../redis/limiters.js';
import type { KeyMode, RegistryStore } from '../../store/types.js';
import { httpRegistry } from './http.js';
import { limitedRegistry, type LimitOptions } from './limited.js';
import { localRegistry } from './local.js';
import type { RegistryAdapter, RegistryAnswer, RegistryQuery } from './types.js';

export type { RegistryAdapter, RegistryAnswer, RegistryQuery } from './types.js';
export { httpRegistry } from './http.js';
export { limitedRegistry } from './limited.js';
export { localRegistry } from './local.js';

export interface RegistryChain {
  /**
   * `mode` is the key's: a test (sandbox) key's lookup reads the demo rows of our own table and
   * nothing else; no upstream is ever called for it, whatever the answer (docs/data-sources.md).
   */
  lookup(query: RegistryQuery, mode: KeyMode): Promise<RegistryAnswer>;
  stop(): Promise<void>;
}

export function registryChain(
  /** Our own table as a live key sees it: real rows and real coverage only. */
  local: RegistryAdapter,
  upstreams: Partial<Record<TCountry, RegistryAdapter & { limiter?: { stop(o?: object): Promise<void> } }>>,
  sandbox: RegistryAdapter,
): RegistryChain {
  return {
    async lookup(query, mode) {
      // The chain's own callers never cancel, so no signal: upstream deadlines come from limitedRegistry.
      if (mode !== 'live') return sandbox.lookup(query);
      const own = await local.lookup(query);
      const upstream = upstreams[query.country];
      if (own.kind === 'found' || !upstream) return own;
      return upstream.lookup(query);
    },
    async stop() {
      await Promise.all(Object.values(upstreams).map((u) => u?.limiter?.stop({ dropWaitingJobs: true })));
    },
  };
}

export function buildRegistryChain(
  store: RegistryStore,
  upstreamUrls: Partial<Record<TCountry, string>>,
  limits: LimitOptions,
  fetchFn: typeof fetch = fetch,
  /** Where the limiters keep their state: in process, or in Redis to share quotas across instances. */
  limiters?: Limiters,
): RegistryChain {
  const upstreams: Partial<Record<TCountry, ReturnType<typeof limitedRegistry>>> = {};
  for (const [country, url] of Object.entries(upstreamUrls) as [TCountry, string][]) {
    upstreams[country] = limitedRegistry(httpRegistry(`upstream-${country.toLowerCase()}`, url, fetchFn), limits, limiters);
  }
  return registryChain(localRegistry(store, 'real'), upstreams, localRegistry(store, 'demo'));
}
