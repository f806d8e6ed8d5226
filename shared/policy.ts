/** Policy object (spec 2.1) and the rules that turn a raw request body into one. */
import { z } from 'zod';
import { echoed, echoedList } from './errors.js';
import { INSURANCE_TYPES, type TInsuranceType } from './insurance-types.js';
import { COUNTRIES, COUNTRY_PROFILES, type TCountry } from './packs/countries/index.js';
import { COUNTRY_NAME_EXAMPLES, countryFromInput, INSURANCE_TYPE_WORD_EXAMPLES, insuranceTypeFromInput } from './packs/input-words.js';
import { ALL_LANGUAGE_PACKS } from './packs/languages/index.js';
import { ZSheetTargetSchema } from './sheets.js';

export { COUNTRIES, INSURANCE_TYPES, type TCountry, type TInsuranceType };

/** "UK, DE or FR", from the registry. */
const listed = (xs: readonly string[], last: 'or' | 'and') =>
  xs.length > 1 ? `${xs.slice(0, -1).join(', ')} ${last} ${xs[xs.length - 1]}` : (xs[0] ?? '');
const orList = (xs: readonly string[]) => listed(xs, 'or');
const ALIAS_NOTE = COUNTRIES.flatMap((c) => COUNTRY_PROFILES[c].aliases.map((a: string) => `${a} as ${c}`));
const IN_LANGUAGES = `in ${listed(
  ALL_LANGUAGE_PACKS.map((p) => p.name),
  'and',
)}`;
/** What an unsupported-value message adds to the codes, so it shows words are accepted too ("also names such as United Kingdom, ..."). */
const COUNTRY_WORDS_NOTE = `also names such as ${COUNTRY_NAME_EXAMPLES.join(', ')}`;
const TYPE_WORDS_NOTE = `also words such as ${INSURANCE_TYPE_WORD_EXAMPLES.join(', ')}`;

export const ZCountrySchema = z.enum(COUNTRIES).meta({
  id: 'Country',
  description: `Supported country. Input is case-insensitive${ALIAS_NOTE.length ? `; accepted aliases: ${ALIAS_NOTE.join(', ')}` : ''}.`,
});

export const ZInsuranceTypeSchema = z
  .enum(INSURANCE_TYPES)
  .meta({ id: 'InsuranceType', description: 'Supported insurance type. Input is case-insensitive.' });

/** Longest policy number we accept: GDV's 35-character VSNr plus room for separators. */
export const MAX_POLICY_NUMBER_LENGTH = 64;
export const MAX_PROVIDER_LENGTH = 200;

/** The normalised policy object the engine works on (after aliasing and case folding). */
export const ZPolicySchema = z
  .object({
    policy_number: z
      .string()
      .min(1)
      .max(MAX_POLICY_NUMBER_LENGTH)
      .meta({ description: 'The number to verify. Case, spaces and dashes are ignored when matching.' }),
    country: ZCountrySchema,
    insurance_type: ZInsuranceTypeSchema,
    provider: z
      .string()
      .max(MAX_PROVIDER_LENGTH)
      .optional()
      .meta({ description: 'Insurer name as the customer gave it. Improves confidence when it matches.' }),
  })
  .meta({ id: 'Policy' });
export type TPolicy = z.infer<typeof ZPolicySchema>;

const policyFields = {
  policy_number: z
    .string()
    .min(1)
    .max(MAX_POLICY_NUMBER_LENGTH)
    .meta({ description: 'Required. 1 to 64 characters.', example: 'UKM-1000-0001' }),
  country: z.string().meta({
    description: `Required. ${orList(COUNTRIES)}, case-insensitive${ALIAS_NOTE.length ? ` (${ALIAS_NOTE.join(', ')})` : ''}; also country names ${IN_LANGUAGES} (${COUNTRY_NAME_EXAMPLES.join(', ')}).`,
    example: COUNTRIES[0],
  }),
  provider: z
    .string()
    .max(MAX_PROVIDER_LENGTH)
    .optional()
    .meta({ description: 'Optional insurer name; improves confidence when it matches the register.', example: 'Aviva Insurance Limited' }),
};
const typeField = z.string().meta({
  description: `${orList(INSURANCE_TYPES)}, case-insensitive; also insurance-type words ${IN_LANGUAGES} (${INSURANCE_TYPE_WORD_EXAMPLES.join(', ')}). Required unless its alias type is given.`,
  example: INSURANCE_TYPES[0],
});
const aliasField = z.string().meta({ description: 'Alias of insurance_type (spec 7 rule 2). If both are given they must agree.' });

/**
 * A policy request body as the server reads it (parsePolicyInput), for the OpenAPI document and
 * generated clients: insurance_type or its alias type is required, so the schema is the union of
 * the two ways to say it; unknown fields are refused (strict objects: additionalProperties false).
 */
function policyRequest<E extends z.ZodRawShape>(extra: E) {
  return z.union([
    z.strictObject({ ...policyFields, insurance_type: typeField, type: aliasField.optional(), ...extra }),
    z.strictObject({ ...policyFields, insurance_type: typeField.optional(), type: aliasField, ...extra }),
  ]);
}

/** The request body of POST /api/v1/verify as documented. Validation and normalisation happen in `parsePolicyInput`. */
export const ZVerifyRequestSchema = policyRequest({}).meta({
  id: 'VerifyRequest',
  description: 'One policy. insurance_type, or its alias type, is required.',
});
export type TVerifyRequest = z.infer<typeof ZVerifyRequestSchema>;

/** Largest decoded PDF accepted (spec 8): 14 MB, read as 14 MiB, inclusive. */
export const MAX_DOCUMENT_BYTES = 14 * 1024 * 1024;

/**
 * The one size rule for a PDF, wherever it arrives (multipart upload, base64 in JSON, the add-on
 * before it downloads from Drive): a file of exactly MAX_DOCUMENT_BYTES is accepted, one byte more is not.
 */
export function documentTooLarge(bytes: number): boolean {
  return bytes > MAX_DOCUMENT_BYTES;
}

/** POST /api/v1/verify/async: the policy plus an optional PDF and callback. */
export const ZAsyncVerifyRequestSchema = policyRequest({
  document: z.string().optional().meta({ description: 'Base64-encoded PDF, at most 14 MB decoded (larger: 413).' }),
  webhook_url: z.string().optional().meta({ description: 'HTTPS URL called when the job finishes (Standard Webhooks signature).' }),
  sheet_target: ZSheetTargetSchema.optional().meta({
    description: 'Write the result into a Google Sheet when the job finishes (our extension).',
  }),
}).meta({
  id: 'AsyncVerifyRequest',
  description: 'One policy, with an optional PDF and callback. insurance_type, or its alias type, is required.',
});
export type TAsyncVerifyRequest = z.infer<typeof ZAsyncVerifyRequestSchema>;

/** Why a raw policy input was refused; codes are the spec's error codes (section 7). */
export type TPolicyInputProblem =
  | { error: 'missing_required_fields'; missing: string[]; detail: string }
  | { error: 'unsupported_country'; detail: string }
  | { error: 'unsupported_insurance_type'; detail: string }
  | { error: 'invalid_request'; detail: string };

export type TPolicyInputResult = { ok: true; policy: TPolicy } | { ok: false; problem: TPolicyInputProblem };

function isBlank(v: unknown): boolean {
  return v === undefined || v === null || (typeof v === 'string' && v.trim() === '');
}

/**
 * Turns an untrusted request body into a policy, or the first problem a client should fix.
 * Order: wrong shape, missing fields (all named at once), country, type. The policy-number
 * format is the engine's business (it depends on country and type), not the contract's.
 * Shared by the connector and the add-on so both reject the same inputs with the same words.
 */
export function parsePolicyInput(body: unknown, opts: { allowedExtra?: readonly string[] } = {}): TPolicyInputResult {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { ok: false, problem: { error: 'invalid_request', detail: 'The request body must be a JSON object.' } };
  }
  const raw = body as Record<string, unknown>;
  for (const field of ['policy_number', 'country', 'insurance_type', 'type', 'provider'] as const) {
    const v = raw[field];
    if (!isBlank(v) && typeof v !== 'string') {
      return { ok: false, problem: { error: 'invalid_request', detail: `Field ${field} must be a string.` } };
    }
  }
  const known = new Set(['policy_number', 'country', 'insurance_type', 'type', 'provider', ...(opts.allowedExtra ?? [])]);
  const unknown = Object.keys(raw).filter((k) => !known.has(k));
  if (unknown.length > 0) {
    return {
      ok: false,
      problem: {
        error: 'invalid_request',
        detail: `Unknown field${unknown.length > 1 ? 's' : ''}: ${echoedList(unknown)}. Accepted: ${[...known].join(', ')}.`,
      },
    };
  }
  const typeValue = isBlank(raw.insurance_type) ? raw.type : raw.insurance_type;
  if (!isBlank(raw.insurance_type) && !isBlank(raw.type)) {
    const a = String(raw.insurance_type).trim();
    const b = String(raw.type).trim();
    // "motor" and "Kfz" agree: they are compared as the types they name, or as typed when one names none.
    const same = (insuranceTypeFromInput(a) ?? a.toLowerCase()) === (insuranceTypeFromInput(b) ?? b.toLowerCase());
    if (!same) {
      return {
        ok: false,
        problem: {
          error: 'invalid_request',
          detail: `insurance_type (${echoed(a)}) and its alias type (${echoed(b)}) disagree; send one of them.`,
        },
      };
    }
  }
  const missing: string[] = [];
  if (isBlank(raw.policy_number)) missing.push('policy_number');
  if (isBlank(raw.country)) missing.push('country');
  if (isBlank(typeValue)) missing.push('insurance_type');
  if (missing.length > 0) {
    return {
      ok: false,
      problem: {
        error: 'missing_required_fields',
        missing,
        detail: `Missing required field${missing.length > 1 ? 's' : ''}: ${missing.join(', ')}`,
      },
    };
  }
  const countryIn = String(raw.country).trim();
  const country = countryFromInput(countryIn);
  if (!country) {
    return {
      ok: false,
      problem: {
        error: 'unsupported_country',
        detail: `Unsupported country: ${echoed(countryIn)}. Supported: ${COUNTRIES.join(', ')} (${COUNTRY_WORDS_NOTE}).`,
      },
    };
  }
  const typeIn = String(typeValue).trim();
  const insuranceType = insuranceTypeFromInput(typeIn);
  if (!insuranceType) {
    return {
      ok: false,
      problem: {
        error: 'unsupported_insurance_type',
        detail: `Unsupported insurance type: ${echoed(typeIn)}. Supported: ${INSURANCE_TYPES.join(', ')} (${TYPE_WORDS_NOTE}).`,
      },
    };
  }
  const policyNumber = String(raw.policy_number).trim();
  if (policyNumber.length > MAX_POLICY_NUMBER_LENGTH) {
    return {
      ok: false,
      problem: { error: 'invalid_request', detail: `policy_number is longer than ${MAX_POLICY_NUMBER_LENGTH} characters.` },
    };
  }
  const provider = isBlank(raw.provider) ? undefined : String(raw.provider).trim();
  if (provider !== undefined && provider.length > MAX_PROVIDER_LENGTH) {
    return { ok: false, problem: { error: 'invalid_request', detail: `provider is longer than ${MAX_PROVIDER_LENGTH} characters.` } };
  }
  const policy: TPolicy = { policy_number: policyNumber, country, insurance_type: insuranceType };
  if (provider !== undefined) policy.provider = provider;
  return { ok: true, policy };
}
