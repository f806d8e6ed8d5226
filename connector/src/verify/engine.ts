/**
 * The verification engine: format, insurer register, policy registry and sanctions checks for
 * one policy, combined into the spec's result (2.2). Knows nothing of HTTP or credits, so the
 * sync route, the job workers and the tests call it alike. A sandbox (test) key's verification
 * reads demo registry rows only and never reaches an upstream; a live key never sees a demo row,
 * and a check whose source has no real data says so (docs/data-sources.md).
 */
import type { TCountry, TPolicy } from '../../../shared/policy.js';
import type { TCheck, TCoverage, TFlag, TVerificationResult, TVerificationSource } from '../../../shared/verification.js';
import type { KeyMode, RegistryPolicyRecord } from '../store/types.js';
import { normalisePolicyNumber } from './normalise.js';
import { requireFormat } from './format-check.js';
import { viewFor, type ReferenceData } from './reference-data.js';
import { checkRegister, type OnlineRegisterLookup } from './register-check.js';
import type { RegistryAnswer, RegistryChain } from './registry/index.js';
import { checkSanctions } from './sanctions-check.js';
import { score, type Signals } from './score.js';

export interface EngineDeps {
  reference: { get(): Promise<ReferenceData> };
  registry: Pick<RegistryChain, 'lookup'>;
  /** Online insurer registers by country (the FCA API for the UK), consulted for live keys only. */
  onlineRegisters?: Partial<Record<TCountry, OnlineRegisterLookup>>;
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

function registryCheck(answer: RegistryAnswer, policy: TPolicy, recordOfType: RegistryPolicyRecord | undefined, sandbox: boolean): TCheck {
  const type = policy.insurance_type;
  switch (answer.kind) {
    case 'found':
      return recordOfType
        ? { source: 'registry', outcome: 'pass', detail: `Found in the ${answer.source} registry${answer.demo ? ' (demo data)' : ''}.` }
        : {
            source: 'registry',
            outcome: 'fail',
            detail: `The ${answer.source} registry holds this number for ${answer.records.map((r) => r.insurance_type).join(', ')}, not ${type}.`,
          };
    case 'not_found':
      return {
        source: 'registry',
        outcome: 'fail',
        detail: `The ${answer.source} registry covers this country and type and does not know this policy number.`,
      };
    case 'no_coverage':
      if (sandbox)
        return {
          source: 'registry',
          outcome: 'unavailable',
          detail: 'No demo registry data covers this country and insurance type (a sandbox key sees demo data only).',
        };
      // Our own table without a real source, and no upstream for the country: nothing is configured.
      if (answer.source === 'local') {
        return {
          source: 'registry',
          outcome: 'not_available',
          detail:
            `No registry source is configured for ${policy.country} ${type}: set an upstream (COVERCHECK_REGISTRY_UPSTREAMS=${policy.country}=https://…) ` +
            `or import the registry's extract (npm run registry:import). Demo data is never used for a live key.`,
        };
      }
      return {
        source: 'registry',
        outcome: 'unavailable',
        detail: `The ${answer.source} registry does not cover ${policy.country} ${type}.`,
      };
    case 'unavailable':
      return {
        source: 'registry',
        outcome: 'unavailable',
        detail: `The ${answer.source} registry could not be consulted: ${answer.reason}.`,
      };
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
  const view = viewFor(ref, mode);

  // Register: the insurer the registry names and/or the one the caller named (register-check.ts).
  const register = await checkRegister({
    policy,
    registryReference: recordOfType?.insurer_reference ?? null,
    view,
    mode,
    online: sandbox ? undefined : deps.onlineRegisters?.[policy.country],
  });
  if (register.ran) sources.push('fca_register');
  checks.push(...register.checks);
  for (const flag of register.flags) flags.add(flag);
  const insurerRecord = register.insurerRecord;
  if (insurerRecord?.demo) flags.add('demo_data');

  sources.push('registry');
  checks.push(registryCheck(answer, policy, recordOfType, sandbox));
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

  const sanctions = checkSanctions(view, policy.country, [insurerRecord?.name, ...(insurerRecord?.aliases ?? []), policy.provider]);
  if (sanctions.check) checks.push(sanctions.check);
  for (const flag of sanctions.flags) flags.add(flag);
  const sanctioned = sanctions.sanctioned;

  if (sandbox) flags.add('sandbox');

  const { status, confidence } = score({
    registry: registrySignal,
    inForce: inForceNow,
    insurer: register.insurerSignal,
    provider: register.provider,
    sanctioned,
  });

  return {
    status,
    confidence_score: confidence,
    verification_sources: sources,
    insurer: register.insurer,
    flags: [...flags],
    policy_number: normalised,
    country: policy.country,
    insurance_type: policy.insurance_type,
    checks,
    coverage,
  };
}
