/**
 * Turns the signals of one verification into a confidence score and a status. Pure, so the
 * weights can be read and tested in one place.
 *
 *   format passed                         0.20 (always: a failed format is a 400, not a result)
 *   registry holds the policy (same type) +0.55
 *   its insurer is on the register        +0.10 if authorised, -0.20 if not
 *   provider given and matches            +0.15 x match score
 *   provider given, names another insurer -0.35
 *   provider given, not on the register   -0.10 (a complete register: the sandbox's, or an online one)
 *   provider not in a partial extract,    0    (unknown is not evidence either way)
 *     or naming an intermediary                (the check fails and flags it; the registry decides)
 *   not in force (expired, cancelled ...)  capped at 0.40
 *   sanctioned insurer                    capped at 0.10
 *   registry does not know the policy     capped at 0.30
 *   no registry coverage or unavailable   capped at 0.50
 *
 * Status: inconclusive when no registry could answer; verified when the registry agrees and the
 * score is above 0.7; unverified otherwise (the registry contradicts or does not know the policy,
 * or the policy it knows is not in force or not trustworthy).
 */
import type { TVerificationStatus } from '../../../shared/verification.js';

export interface Signals {
  registry: 'agrees' | 'type_mismatch' | 'not_found' | 'no_coverage' | 'unavailable';
  inForce: boolean;
  insurer: 'authorised' | 'not_authorised' | 'unknown';
  provider:
    | { kind: 'none' }
    | { kind: 'match'; score: number }
    | { kind: 'mismatch' }
    | { kind: 'not_on_register' }
    | { kind: 'unknown' }
    | { kind: 'intermediary' };
  sanctioned: boolean;
}

export const VERIFIED_THRESHOLD = 0.7;

export function score(s: Signals): { status: TVerificationStatus; confidence: number } {
  let c = 0.2;
  if (s.registry === 'agrees') c += 0.55;
  if (s.insurer === 'authorised') c += 0.1;
  if (s.insurer === 'not_authorised') c -= 0.2;
  if (s.provider.kind === 'match') c += 0.15 * s.provider.score;
  if (s.provider.kind === 'mismatch') c -= 0.35;
  if (s.provider.kind === 'not_on_register') c -= 0.1;
  if (s.registry === 'agrees' && !s.inForce) c = Math.min(c, 0.4);
  if (s.sanctioned) c = Math.min(c, 0.1);
  if (s.registry === 'not_found' || s.registry === 'type_mismatch') c = Math.min(c, 0.3);
  if (s.registry === 'no_coverage' || s.registry === 'unavailable') c = Math.min(c, 0.5);
  const confidence = Math.round(Math.min(1, Math.max(0, c)) * 100) / 100;
  let status: TVerificationStatus;
  if (s.registry === 'no_coverage' || s.registry === 'unavailable') status = 'inconclusive';
  else if (s.registry === 'agrees' && confidence > VERIFIED_THRESHOLD) status = 'verified';
  else status = 'unverified';
  return { status, confidence };
}
