/**
 * The insurer-register check: which insurer a policy is with, from the registry's record and from the
 * provider the caller named, and what the register says of it.
 *
 * The view is the key's (reference-data.ts). A live key's register holds real rows only, and the
 * shipped extracts are partial (35 UK firms, the DE and FR lists), so a name it does not hold is
 * `unknown`, never "not authorised" and never "not found"; with an online register configured (the FCA
 * API for the UK) that register decides. The sandbox keeps its demo world, where the register is taken
 * as complete and a name it does not know is "not found" (docs/data-sources.md).
 *
 * An intermediary (broker, MGA) is on the regulator's register but carries no risk: it is never taken
 * as the insurer, and a provider that names one gets a check that says so.
 */
import { COUNTRY_PROFILES } from '../../../shared/packs/index.js';
import type { TPolicy } from '../../../shared/policy.js';
import type { TCheck, TFlag, TInsurer } from '../../../shared/verification.js';
import { toInsurerObject, type InsurerMatch } from '../insurers/matcher.js';
import type { OnlineRegister, OnlineRegisterAnswer } from '../insurers/online/index.js';
import type { InsurerRecord, KeyMode } from '../store/types.js';
import type { ReferenceView } from './reference-data.js';
import type { Signals } from './score.js';

/** What the check asks of an online register (insurers/online/): a lookup by reference and by name. */
export type OnlineRegisterLookup = Pick<OnlineRegister, 'name' | 'byReference' | 'byName'>;

export interface RegisterInput {
  policy: TPolicy;
  /** The insurer reference the registry's record names, if any. */
  registryReference: string | null;
  view: ReferenceView;
  mode: KeyMode;
  /** The country's online register, for live keys where one is configured. */
  online?: OnlineRegisterLookup | undefined;
}

export interface RegisterOutcome {
  /** False when there was nothing to check (no provider, no insurer named by the registry). */
  ran: boolean;
  insurerRecord: InsurerRecord | null;
  insurer: TInsurer | null;
  checks: TCheck[];
  flags: TFlag[];
  provider: Signals['provider'];
  insurerSignal: Signals['insurer'];
}

/** A register row found locally or online; `unsure` when an online firm's permissions don't say what it is. */
interface Found {
  match: InsurerMatch | { record: InsurerRecord; score?: number };
  unsure?: boolean;
}

function fromOnline(answer: OnlineRegisterAnswer): Found | null {
  if (answer.kind !== 'found') return null;
  const kind = answer.firmKind === 'intermediary' ? 'intermediary' : 'insurer';
  return { match: { record: { ...answer.record, kind } }, unsure: answer.firmKind === 'unknown' };
}

export async function checkRegister(input: RegisterInput): Promise<RegisterOutcome> {
  const { policy, registryReference, view, mode, online } = input;
  const country = policy.country;
  const source = COUNTRY_PROFILES[country].regulator.checkSource;
  const regulator = COUNTRY_PROFILES[country].regulator.name;
  const sandbox = mode !== 'live';
  const out: RegisterOutcome = {
    ran: false,
    insurerRecord: null,
    insurer: null,
    checks: [],
    flags: [],
    provider: { kind: 'none' },
    insurerSignal: 'unknown',
  };
  if (!policy.provider && !registryReference) return out;
  out.ran = true;

  const rows = view.registerRows[country];
  const partial = `the ${country} register this install holds (${rows} firm${rows === 1 ? '' : 's'}, a partial extract)`;
  const howToComplete = COUNTRY_PROFILES[country].regulator.completeRegister;
  // Named for people: "the FCA register API" (online.name is the source's id, fca-register-api).
  const onlineName = `${regulator} register API`;
  const onlineNote = (answer: OnlineRegisterAnswer): string =>
    answer.kind === 'unavailable' ? `; the ${onlineName} could not be consulted (${answer.reason})` : '';

  // The insurer the registry's record names.
  let registryFound: Found | null = null;
  let registryOnline: OnlineRegisterAnswer | null = null;
  if (registryReference) {
    const local = view.insurers.byReference(country, registryReference);
    if (local) registryFound = { match: { record: local } };
    else if (online && !sandbox) registryFound = fromOnline((registryOnline = await online.byReference(registryReference)));
  }

  // The firm the caller named.
  let providerFound: Found | null = null;
  let providerOnline: OnlineRegisterAnswer | null = null;
  if (policy.provider) {
    const local = view.insurers.match(country, policy.provider);
    if (local) providerFound = { match: local };
    else if (online && !sandbox) providerFound = fromOnline((providerOnline = await online.byName(policy.provider)));

    if (!providerFound) {
      if (sandbox) {
        out.provider = { kind: 'not_on_register' };
        out.flags.push('provider_not_found');
        out.checks.push({ source, outcome: 'warn', detail: `No insurer on the ${country} register matches "${policy.provider}".` });
      } else if (providerOnline?.kind === 'not_found') {
        // A complete register that does not hold the name: the provider is not a regulated firm by that name.
        out.provider = { kind: 'not_on_register' };
        out.flags.push('provider_not_found');
        out.checks.push({ source, outcome: 'warn', detail: `No firm on the ${onlineName} matches "${policy.provider}".` });
      } else if (providerOnline?.kind === 'unavailable') {
        out.provider = { kind: 'unknown' };
        out.checks.push({
          source,
          outcome: 'unavailable',
          detail: `"${policy.provider}" is not in ${partial}${onlineNote(providerOnline)}: its status is unknown for now.`,
        });
      } else if (rows === 0) {
        out.provider = { kind: 'unknown' };
        out.checks.push({
          source,
          outcome: 'not_available',
          detail: `No ${regulator} register is loaded for ${country}, so "${policy.provider}" could not be checked: ${howToComplete}.`,
        });
      } else {
        out.provider = { kind: 'unknown' };
        out.checks.push({
          source,
          outcome: 'unknown',
          detail: `"${policy.provider}" is not in ${partial}: its status is unknown, not "not authorised". To check any firm, ${howToComplete}.`,
        });
      }
    } else if (providerFound.match.record.kind === 'intermediary') {
      const r = providerFound.match.record;
      out.provider = { kind: 'intermediary' };
      out.flags.push('provider_is_intermediary');
      out.checks.push({
        source,
        outcome: 'fail',
        detail: `${r.name} is an intermediary, ${COUNTRY_PROFILES[country].regulator.referenceShort} ${r.reference}, not an insurer: a broker or agent arranges the policy, an insurer carries it. Name the insurer that underwrites the policy.`,
      });
      providerFound = null;
    }
  }

  const registryRecord = registryFound?.match.record ?? null;
  if (providerFound && registryRecord && providerFound.match.record.reference !== registryRecord.reference) {
    out.provider = { kind: 'mismatch' };
    out.flags.push('provider_mismatch');
    out.checks.push({
      source,
      outcome: 'fail',
      detail: `The provider given matches ${providerFound.match.record.name}, but the registry records ${registryRecord.name} for this policy.`,
    });
  } else if (providerFound) {
    const score = 'score' in providerFound.match && typeof providerFound.match.score === 'number' ? providerFound.match.score : 1;
    out.provider = { kind: 'match', score };
  }

  const chosen = registryFound ?? providerFound;
  if (chosen) {
    const record = chosen.match.record;
    if (record.kind === 'intermediary') {
      // Only the registry's record can get here (a provider naming one was set aside above).
      out.checks.push({
        source,
        outcome: 'fail',
        detail: `The registry names ${record.name} (${record.reference}), an intermediary on the register, not an insurer.`,
      });
      return out;
    }
    const sameAsProvider = providerFound && providerFound.match.record.reference === record.reference;
    out.insurerRecord = record;
    out.insurer = toInsurerObject(sameAsProvider ? providerFound!.match : { record });
    const where = `source ${record.source}${record.demo ? ', demo data' : ''}`;
    if (chosen.unsure) {
      out.insurerSignal = 'unknown';
      out.checks.push({
        source,
        outcome: 'unknown',
        detail: `${record.name} (${record.reference}) is on the register, but its permissions do not show whether it is an insurer; ${where}.`,
      });
    } else if (record.authorised) {
      out.insurerSignal = 'authorised';
      out.checks.push({
        source,
        outcome: 'pass',
        detail: `${record.name} (${record.reference}) is on the register and authorised${statusWords(record)}; ${where}.`,
      });
    } else if (record.status_text === null) {
      out.insurerSignal = 'unknown';
      out.checks.push({
        source,
        outcome: 'unknown',
        detail: `${record.name} (${record.reference}) is on the register; its source states no authorisation status, so it is unknown; ${where}.`,
      });
    } else {
      out.insurerSignal = 'not_authorised';
      out.flags.push('insurer_not_authorised');
      out.checks.push({
        source,
        outcome: 'fail',
        detail: `${record.name} (${record.reference}) is on the register but not currently authorised${statusWords(record)}; ${where}.`,
      });
    }
  } else if (registryReference) {
    const onlineWord = registryOnline ? onlineNote(registryOnline) : '';
    out.checks.push(
      sandbox
        ? { source, outcome: 'warn', detail: `The registry names insurer ${registryReference}, which is not on the register.` }
        : registryOnline?.kind === 'not_found'
          ? { source, outcome: 'warn', detail: `The registry names insurer ${registryReference}, which the ${onlineName} does not hold.` }
          : {
              source,
              outcome: registryOnline?.kind === 'unavailable' ? 'unavailable' : 'unknown',
              detail: `The registry names insurer ${registryReference}, which is not in ${partial}${onlineWord}.`,
            },
    );
  }
  return out;
}

function statusWords(record: InsurerRecord): string {
  return record.status_text ? ` (status "${record.status_text}")` : '';
}
