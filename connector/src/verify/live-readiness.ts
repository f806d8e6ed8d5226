/**
 * What a live key would find missing on this install, said once at start so the operator reads it in
 * the log before a team does in red cells (docs/data-sources.md): policy registries without a real
 * source or an upstream, no real sanctions list, and a partial UK register without the FCA API.
 */
import { COUNTRIES, INSURANCE_TYPES, type TCountry, type TInsuranceType } from '../../../shared/policy.js';
import type { RegistryStore, SanctionStore } from '../store/types.js';
import { coveredIn } from './registry/local.js';

export interface LiveReadiness {
  /** Country and type pairs a live key gets `inconclusive` for: no real registry rows and no upstream. */
  registryMissing: `${TCountry} ${TInsuranceType}`[];
  /** No real sanctions list loaded: the sanctions check says not_checked. */
  sanctionsMissing: boolean;
  /** The UK register is the shipped partial extract only (no FCA register API). */
  ukRegisterPartial: boolean;
}

export async function liveReadiness(
  store: { registry: Pick<RegistryStore, 'coverage'>; sanctions: Pick<SanctionStore, 'all'> },
  configured: { upstreams: Partial<Record<TCountry, string>>; fcaApi: boolean },
): Promise<LiveReadiness> {
  const registryMissing: LiveReadiness['registryMissing'] = [];
  for (const country of COUNTRIES) {
    if (configured.upstreams[country]) continue;
    for (const type of INSURANCE_TYPES) {
      if (!coveredIn(await store.registry.coverage(country, type), 'real')) registryMissing.push(`${country} ${type}`);
    }
  }
  const sanctionsMissing = !(await store.sanctions.all()).some((s) => !s.demo);
  return { registryMissing, sanctionsMissing, ukRegisterPartial: !configured.fcaApi };
}
