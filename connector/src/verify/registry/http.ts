/**
 * An upstream registry reached over HTTP. The public registries (UK MID, DE GDV/eVB, FR FVA) are
 * closed, so this speaks a small documented JSON protocol that an operator's gateway implements:
 *   GET {base}/policies/{country}/{insurance_type}/{policy_number}
 *   200 {"found": true, "policies": [{policy_number, insurance_type, insurer_reference, start_date, end_date, status}]}
 *   404 {"found": false}                -> not_found
 *   409 {"coverage": false}             -> no_coverage
 *   anything else, a timeout or bad JSON -> unavailable
 */
import { z } from 'zod';
import { INSURANCE_TYPES } from '../../../../shared/insurance-types.js';
import { REGISTRY_STATUSES } from '../../../../shared/verification.js';
import type { RegistryAdapter, RegistryAnswer, RegistryQuery } from './types.js';

const ZUpstreamPolicy = z.object({
  policy_number: z.string(),
  insurance_type: z.enum(INSURANCE_TYPES),
  insurer_reference: z.string().nullable().optional(),
  start_date: z.string().nullable().optional(),
  end_date: z.string().nullable().optional(),
  status: z.enum(REGISTRY_STATUSES),
  vehicle_registration: z.string().nullable().optional(),
});
const ZFound = z.object({ found: z.literal(true), policies: z.array(ZUpstreamPolicy).min(1) });

export function httpRegistry(name: string, baseUrl: string, fetchFn: typeof fetch = fetch): RegistryAdapter {
  return {
    name,
    async lookup(query: RegistryQuery, signal?: AbortSignal): Promise<RegistryAnswer> {
      const url = `${baseUrl}/policies/${query.country}/${query.insurance_type}/${encodeURIComponent(query.policy_number)}`;
      let res: Response;
      try {
        res = await fetchFn(url, { signal, headers: { accept: 'application/json' } });
      } catch (err) {
        return { kind: 'unavailable', source: name, reason: signal?.aborted ? 'timed out' : `unreachable (${(err as Error).message})` };
      }
      if (res.status === 404) return { kind: 'not_found', source: name, demo: false };
      if (res.status === 409) return { kind: 'no_coverage', source: name };
      if (res.status !== 200) return { kind: 'unavailable', source: name, reason: `answered HTTP ${res.status}` };
      const parsed = ZFound.safeParse(await res.json().catch(() => null));
      if (!parsed.success) return { kind: 'unavailable', source: name, reason: 'answered with an unexpected body' };
      return {
        kind: 'found',
        source: name,
        demo: false,
        records: parsed.data.policies.map((p) => ({
          policy_number: query.policy_number,
          country: query.country,
          insurance_type: p.insurance_type,
          insurer_reference: p.insurer_reference ?? null,
          start_date: p.start_date ?? null,
          end_date: p.end_date ?? null,
          status: p.status,
          vehicle_registration: p.vehicle_registration ?? null,
          source: name,
          demo: false,
        })),
      };
    },
  };
}
