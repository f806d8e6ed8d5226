/**
 * The verification engine: format, insurer register, policy registry and sanctions checks for
 * one policy, combined into the spec's result (2.2). Knows nothing of HTTP or credits, so the
 * sync route, the job workers and the tests call it alike. A sandbox (test) key's verification
 * reads demo registry rows only and never reaches an upstream (docs/sandbox.md).
 */
import { COUNTRY_PROFILES } from '../../../shared/packs/index.js';
import type { TPolicy } from '../../../shared/policy.js';
import type { TCheck, TCoverage, TFlag, TInsurer, TVerificationResult, TVerificationSource } from '../../../shared/verification.js';
import { toInsurerObject, type InsurerMatch } from '../insurers/matcher.js';
import type { InsurerRecord, KeyMode, RegistryPolicyRecord } from '../store/types.js';
import { normalisePolicyNumber } from './normalise.js';
import { requireFormat } from './format-check.js';
import type { ReferenceData } from './reference-data.js';
import type { RegistryAnswer, RegistryChain } from './registry/index.js';
import { score, type Signals } from './score.js';


export interface EngineDeps {
  reference: { get(): Promise<ReferenceData> };
  registry: Pick<RegistryChain, 'lookup'>;
  now?: () => Date;
}

/** The result without the fields the caller fills in (credits depend on the key, time on the caller's clock). */
export type EngineResult = Omit<TVerificationResult, 'credits_charged' | 'processed_in_ms'>;

function inForce(record: RegistryPolicyRecord, today: string): { ok: boolean; flags: TFlag[]; why: string[] } {
  const flags: TFlag[] = [];
  const why: string[] = [];
  if (record.status === 'cancelled') flags.push('cancelled');
  if (record.status === 'suspended') flags.push('suspended');
  if (record.status === 'lapsed' || (record.end_date !== null && record.end_date < today)) flags.push('expired');
  if (record.start_date !== null && record.start_date > today) flags.push('not_yet_active');
  if (record.status !== 'active') why.push(`registry status is ${record.status}`);
  if (record.end_date !== null && record.end_date < today) why.push(`cover ended ${record.end_date}`);
  if (record.start_date !== null && record.start_date > today) why.push(`cover starts ${record.start_date}`);
  return { ok: flags.length === 0, flags, why };
}

function registryCheck(answer: RegistryAnswer, type: string, recordOfType: RegistryPolicyRecord | undefined, sandbox: boolean): TCheck {
  switch (answer.kind) {
    case 'found':
      return recordOfType
        ? { source: 'registry', outcome: 'pass', detail: `Found in the ${answer.source} registry${answer.demo ? ' (demo data)' : ''}.` }
        : { source: 'registry', outcome: 'fail', detail: `The ${answer.source} registry holds this number for ${answer.records.map((r) => r.insurance_type).join(', ')}, not ${type}.` };
    case 'not_found':
      return { source: 'registry', outcome: 'fail', detail: `The ${answer.source} registry covers this country and type and does not know this policy number.` };
    case 'no_coverage':
      return sandbox
        ? { source: 'registry', outcome: 'unavailable', detail: 'No demo registry data covers this country and insurance type (a sandbox key sees demo data only).' }
        : { source: 'registry', outcome: 'unavailable', detail: 'No registry covers this country and insurance type yet.' };
    case 'unavailable':
      return { source: 'registry', outcome: 'unavailable', detail: `The ${answer.source} registry could not be consulted: ${answer.reason}.` };
  }
}

/**
 * `mode`: the calling key's; anything but `live` is the sandbox. A number whose format does not
 * fit its country and type throws AppError invalid_policy_number (requireFormat).
 */
export async function verifyPolicy(policy: TPolicy, deps: EngineDeps, mode: KeyMode): Promise<EngineResult> {
  const sandbox = mode !== 'live';
  const today = (deps.now?.() ?? new Date()).toISOString().slice(0, 10);
  const rule = requireFormat(policy);
  const normalised = normalisePolicyNumber(policy.policy_number);
  const sources: TVerificationSource[] = ['format'];
  const checks: TCheck[] = [{ source: 'format', outcome: 'pass', detail: `Matches ${rule.id}: ${rule.description}.` }];
  const flags = new Set<TFlag>();

  const [ref, answer] = await Promise.all([
    deps.reference.get(),
    deps.registry.lookup({ country: policy.country, insurance_type: policy.insurance_type, policy_number: normalised }, mode),
  ]);
  const recordOfType = answer.kind === 'found' ? answer.records.find((r) => r.insurance_type === policy.insurance_type) : undefined;

  // Register: the insurer the registry names and/or the one the caller named.
  const registryInsurer: InsurerRecord | null = recordOfType?.insurer_reference ? ref.insurers.byReference(policy.country, recordOfType.insurer_reference) : null;
  const providerMatch: InsurerMatch | null = policy.provider ? ref.insurers.match(policy.country, policy.provider) : null;
  let provider: Signals['provider'] = { kind: 'none' };
  let insurer: TInsurer | null = null;
  let insurerRecord: InsurerRecord | null = null;
  // checks[] names the country's own register; verification_sources says fca_register (spec 2.2).
  const registerSource = COUNTRY_PROFILES[policy.country].regulator.checkSource;
  if (policy.provider || registryInsurer || recordOfType?.insurer_reference) {
    sources.push('fca_register');
    if (policy.provider && !providerMatch) {
      provider = { kind: 'not_on_register' };
      flags.add('provider_not_found');
      checks.push({ source: registerSource, outcome: 'warn', detail: `No insurer on the ${policy.country} register matches "${policy.provider}".` });
    }
    if (providerMatch && registryInsurer && providerMatch.record.reference !== registryInsurer.reference) {
      provider = { kind: 'mismatch' };
      flags.add('provider_mismatch');
      checks.push({
        source: registerSource,
        outcome: 'fail',
        detail: `The provider given matches ${providerMatch.record.name}, but the registry records ${registryInsurer.name} for this policy.`,
      });
    } else if (providerMatch) {
      provider = { kind: 'match', score: providerMatch.score };
    }
    insurerRecord = registryInsurer ?? providerMatch?.record ?? null;
    if (insurerRecord) {
      const sameAsProvider = providerMatch && providerMatch.record.reference === insurerRecord.reference;
      insurer = toInsurerObject(sameAsProvider ? providerMatch : { record: insurerRecord });
      if (!insurerRecord.authorised) flags.add('insurer_not_authorised');
      if (insurerRecord.demo) flags.add('demo_data');
      checks.push({
        source: registerSource,
        outcome: insurerRecord.authorised ? 'pass' : 'fail',
        detail: `${insurerRecord.name} (${insurerRecord.reference}) is on the register${insurerRecord.authorised ? ' and authorised' : ' but not currently authorised'}; source ${insurerRecord.source}${insurerRecord.demo ? ', demo data' : ''}.`,
      });
    } else if (recordOfType?.insurer_reference) {
      checks.push({ source: registerSource, outcome: 'warn', detail: `The registry names insurer ${recordOfType.insurer_reference}, which is not on the register.` });
    }
  }

  sources.push('registry');
  checks.push(registryCheck(answer, policy.insurance_type, recordOfType, sandbox));
  let registrySignal: Signals['registry'];
  let coverage: TCoverage | null = null;
  let inForceNow = true;
  if (answer.kind === 'found') {
    if (answer.demo) flags.add('demo_data');
    if (recordOfType) {
      registrySignal = 'agrees';
      coverage = { start_date: recordOfType.start_date, end_date: recordOfType.end_date, registry_status: recordOfType.status };
      const f = inForce(recordOfType, today);
      inForceNow = f.ok;
      for (const flag of f.flags) flags.add(flag);
      if (!f.ok) checks.push({ source: 'registry', outcome: 'fail', detail: `Not in force: ${f.why.join('; ')}.` });
    } else {
      registrySignal = 'type_mismatch';
      flags.add('type_mismatch');
    }
  } else if (answer.kind === 'not_found') {
    registrySignal = 'not_found';
    if (answer.demo) flags.add('demo_data');
  } else if (answer.kind === 'no_coverage') {
    registrySignal = 'no_coverage';
    flags.add('no_registry_coverage');
  } else {
    registrySignal = 'unavailable';
    flags.add('registry_unavailable');
  }

  const names = [insurerRecord?.name, ...(insurerRecord?.aliases ?? []), policy.provider].filter((n): n is string => !!n);
  let sanctioned = false;
  if (names.length > 0) {
    const hit = ref.sanctions.find(policy.country, names);
    sanctioned = hit !== null;
    if (hit) {
      flags.add('sanctioned');
      if (hit.demo) flags.add('demo_data');
    }
    checks.push(
      hit
        ? { source: 'sanctions', outcome: 'fail', detail: `${hit.name} is on the ${hit.list} sanctions list${hit.demo ? ' (demo data)' : ''}.` }
        : { source: 'sanctions', outcome: 'pass', detail: 'No sanctions listing for the insurer.' },
    );
  }

  if (sandbox) flags.add('sandbox');

  const { status, confidence } = score({
    registry: registrySignal,
    inForce: inForceNow,
    insurer: insurerRecord ? (insurerRecord.authorised ? 'authorised' : 'not_authorised') : 'unknown',
    provider,
    sanctioned,
  });

  return {
    status,
    confidence_score: confidence,
    verification_sources: sources,
    insurer,
    flags: [...flags],
    policy_number: normalised,
    country: policy.country,
    insurance_type: policy.insurance_type,
    checks,
    coverage,
  };
}
