/**
 * The registry table in our own store (demo rows and `npm run registry:import` files). The
 * sandbox view holds the demo rows only, and counts a country and type as covered only where a
 * demo source covers it: a sandbox key learns nothing of the real rows (docs/sandbox.md).
 */
import type { RegistryStore } from '../../store/types.js';
import type { RegistryAdapter, RegistryAnswer, RegistryQuery } from './types.js';

export function localRegistry(store: RegistryStore, view: { demoOnly: boolean } = { demoOnly: false }): RegistryAdapter {
  return {
    name: 'local',
    async lookup(query: RegistryQuery): Promise<RegistryAnswer> {
      const found = await store.find(query.country, query.policy_number);
      const records = view.demoOnly ? found.filter((r) => r.demo) : found;
      if (records.length > 0) return { kind: 'found', records, source: 'local', demo: records.every((r) => r.demo) };
      const coverage = await store.coverage(query.country, query.insurance_type);
      if (!coverage || (view.demoOnly && !coverage.demo_covered)) return { kind: 'no_coverage', source: 'local' };
      return { kind: 'not_found', source: 'local', demo: view.demoOnly || coverage.demo };
    },
  };
}
