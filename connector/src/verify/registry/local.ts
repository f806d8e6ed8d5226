/**
 * The registry table in our own store (demo rows and `npm run registry:import` files), seen through
 * the calling key's view (docs/data-sources.md):
 * - `demo`, a sandbox key's: the demo rows only, and a country and type count as covered only where a
 *   demo source covers them, so a sandbox key learns nothing of the real rows;
 * - `real`, a live key's: the imported rows only, and coverage only where a real source declared it,
 *   so a demo row never answers a live key and demo coverage never turns "no source" into "not found".
 */
import type { RegistryCoverage, RegistryStore } from '../../store/types.js';
import type { RegistryAdapter, RegistryAnswer, RegistryQuery } from './types.js';

export type RegistryView = 'demo' | 'real';

/** Whether a country and type count as covered in a view: `demo` on a coverage row is true only while no real source covers it (min over the loads). */
export function coveredIn(coverage: RegistryCoverage | null, view: RegistryView): boolean {
  return coverage !== null && (view === 'demo' ? coverage.demo_covered : !coverage.demo);
}

export function localRegistry(store: RegistryStore, view: RegistryView): RegistryAdapter {
  const demoView = view === 'demo';
  return {
    name: 'local',
    async lookup(query: RegistryQuery): Promise<RegistryAnswer> {
      const found = await store.find(query.country, query.policy_number);
      const records = found.filter((r) => r.demo === demoView);
      if (records.length > 0) return { kind: 'found', records, source: 'local', demo: demoView };
      if (!coveredIn(await store.coverage(query.country, query.insurance_type), view)) return { kind: 'no_coverage', source: 'local' };
      return { kind: 'not_found', source: 'local', demo: demoView };
    },
  };
}
