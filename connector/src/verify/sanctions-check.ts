/**
 * The sanctions check against the lists the key's view holds. A live key sees real lists only (the
 * UK Sanctions List, OFSI and EU consolidated lists an operator imports); with none loaded the check says `not_checked`
 * and how to load one, never "no listing" (docs/data-sources.md).
 */
import type { TCountry } from '../../../shared/policy.js';
import type { TCheck, TFlag } from '../../../shared/verification.js';
import type { ReferenceView } from './reference-data.js';

export function checkSanctions(
  view: ReferenceView,
  country: TCountry,
  candidates: ReadonlyArray<string | null | undefined>,
): { check: TCheck | null; flags: TFlag[]; sanctioned: boolean } {
  const names = candidates.filter((n): n is string => !!n);
  if (names.length === 0) return { check: null, flags: [], sanctioned: false };
  if (view.sanctionLists.length === 0) {
    return {
      check: {
        source: 'sanctions',
        outcome: 'not_checked',
        detail:
          'No sanctions list is loaded, so no sanctions check ran: load the UK Sanctions List, the OFSI consolidated list or the EU consolidated list with npm run sanctions:import.',
      },
      flags: ['sanctions_not_checked'],
      sanctioned: false,
    };
  }
  const hit = view.sanctions.find(country, names);
  if (hit) {
    return {
      check: {
        source: 'sanctions',
        outcome: 'fail',
        detail: `${hit.name} is on the ${hit.list} sanctions list${hit.reference ? ` (${hit.reference})` : ''}${hit.demo ? ' (demo data)' : ''}.`,
      },
      flags: hit.demo ? ['sanctioned', 'demo_data'] : ['sanctioned'],
      sanctioned: true,
    };
  }
  return {
    check: { source: 'sanctions', outcome: 'pass', detail: `No listing for the insurer on ${view.sanctionLists.join(', ')}.` },
    flags: [],
    sanctioned: false,
  };
}
