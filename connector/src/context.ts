/** Everything a request handler may use, built once at start and passed down (no globals). */
import type { Config } from './config.js';
import type { Logger } from './logger.js';
import type { Store } from './store/types.js';
import { ReferenceDataCache } from './verify/reference-data.js';
import { buildRegistryChain, type RegistryChain } from './verify/registry/index.js';

export interface AppContext {
  config: Config;
  store: Store;
  logger: Logger;
  reference: ReferenceDataCache;
  registry: RegistryChain;
  now: () => Date;
}

export function createContext(config: Config, store: Store, logger: Logger, opts: { now?: () => Date; fetch?: typeof fetch } = {}): AppContext {
  return {
    config,
    store,
    logger,
    reference: new ReferenceDataCache(store),
    registry: buildRegistryChain(
      store.registry,
      config.registry.upstreams,
      { maxConcurrent: config.registry.maxConcurrent, minTimeMs: config.registry.minTimeMs, timeoutMs: config.registry.timeoutMs },
      opts.fetch,
    ),
    now: opts.now ?? (() => new Date()),
  };
}
