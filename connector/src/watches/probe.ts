/**
 * What the insurer register and the sanctions lists say of a watched policy's insurer, in a few
 * characters: stored with each check, and compared after an import (register-rechecks.ts) to find the
 * policies whose insurer's standing changed, without running the engine for the others.
 */
import type { TPolicy } from '../../../shared/policy.js';
import { checkSanctions } from '../verify/sanctions-check.js';
import type { ReferenceView } from '../verify/reference-data.js';
import type { ItemState } from './compare.js';

/**
 * `a:<authorised>` of the register row the last check named (`-` when it names none, `?` when the row
 * is gone), then `s:<sanctioned>` of the insurer's and the given provider's names, as the engine checks them.
 */
export function probeOf(view: ReferenceView, policy: TPolicy, state: Pick<ItemState, 'insurer'>): string {
  const row = state.insurer ? view.insurers.byReference(policy.country, state.insurer.reference) : null;
  const authorised = !state.insurer ? '-' : row ? (row.authorised ? '1' : '0') : '?';
  const sanctioned = checkSanctions(view, policy.country, [state.insurer?.name, policy.provider]).sanctioned ? '1' : '0';
  return `a:${authorised} s:${sanctioned}`;
}
