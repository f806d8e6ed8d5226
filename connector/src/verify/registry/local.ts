/** The registry table in our own store (demo rows and `npm run registry:import` files). */
import type { RegistryStore } from '../../store/types.js';
import type { RegistryAdapter, RegistryAnswer, RegistryQuery } from './types.js';

export function localRegistry(store: RegistryStore): RegistryAdapter {
  return {
    name: 'local',
    async lookup(query: RegistryQuery): Promise<RegistryAnswer> {
      const records = await store.find(query.country, query.policy_number);
      if (records.length > 0) return { kind: 'found', records, source: 'local', demo: records.every((r) => r.demo) };
      const coverage = await store.coverage(query.country, query.insurance_type);
      if (!coverage) return { kind: 'no_coverage', source: 'local' };
      return { kind: 'not_found', source: 'local', demo: coverage.demo };
    },
  };
}
