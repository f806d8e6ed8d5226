/** Verification result and insurer object (spec 2.2), with the fields the spec leaves open. */
import { z } from 'zod';
import { COUNTRY_PROFILES, type TCountry } from './packs/countries/index.js';
import { CHECK_OUTCOMES, FLAGS } from './flags.js';
import { ZCountrySchema, ZInsuranceTypeSchema } from './policy.js';

export const VERIFICATION_STATUSES = ['verified', 'inconclusive', 'unverified'] as const;

/** A policy's state in a registry: our own table, a CSV import and an upstream's answer all use these. */
export const REGISTRY_STATUSES = ['active', 'cancelled', 'lapsed', 'suspended'] as const;
export type TRegistryStatus = (typeof REGISTRY_STATUSES)[number];
export const ZVerificationStatusSchema = z.enum(VERIFICATION_STATUSES).meta({
  id: 'VerificationStatus',
  description:
    'verified: confidence above 0.7 and the registry agrees. unverified: the registry contradicts the policy or does not know it. ' +
    'inconclusive: no registry covers this country and type, or the registry could not be reached.',
});
export type TVerificationStatus = z.infer<typeof ZVerificationStatusSchema>;

/**
 * `verification_sources` keeps to the spec's three values (2.2: "format, fca_register, registry"), so a
 * client decoding it as that enum never fails: the regulator-register check is `fca_register` whichever
 * regulator's register ran it. Which register that was, and the sanctions check, are named in `checks[]`.
 */
export const VERIFICATION_SOURCES = ['format', 'fca_register', 'registry'] as const;
export const ZVerificationSourceSchema = z.enum(VERIFICATION_SOURCES).meta({
  id: 'VerificationSource',
  description: "The spec's check names. fca_register stands for the regulator-register check of any country; checks[] names the register.",
});
export type TVerificationSource = z.infer<typeof ZVerificationSourceSchema>;

/** The register check's name in checks[] for each country: its regulator's (country profile). */
export type TRegisterCheckSource = (typeof COUNTRY_PROFILES)[TCountry]['regulator']['checkSource'];
const REGISTER_CHECK_SOURCES = [...new Set(Object.values(COUNTRY_PROFILES).map((p) => p.regulator.checkSource))] as TRegisterCheckSource[];

/** What `checks[].source` names: the actual register (FCA, BaFin, ACPR: from the country profiles) and the sanctions list too (ours). */
export const CHECK_SOURCES = ['format', ...REGISTER_CHECK_SOURCES, 'registry', 'sanctions'] as [
  'format',
  ...TRegisterCheckSource[],
  'registry',
  'sanctions',
];
export const ZCheckSourceSchema = z.enum(CHECK_SOURCES).meta({ id: 'CheckSource' });
export type TCheckSource = z.infer<typeof ZCheckSourceSchema>;

export { FLAGS };
export const ZFlagSchema = z.enum(FLAGS).meta({ id: 'Flag' });
export type TFlag = z.infer<typeof ZFlagSchema>;

export const ZInsurerSchema = z
  .object({
    name: z.string().meta({ description: 'Canonical name as held by the register.' }),
    reference: z.string().meta({
      description: `Regulator reference: ${Object.entries(COUNTRY_PROFILES)
        .map(([c, p]) => `${p.regulator.reference} (${c})`)
        .join(', ')}.`,
    }),
    regulated: z.enum(['YES', 'NO']).meta({ description: 'Whether the insurer appears on a regulator register.' }),
    authorised: z.boolean().meta({ description: 'Whether the register shows a current authorisation.' }),
    country: ZCountrySchema,
    source: z.string().meta({ description: 'Where the register row came from (importer name), so a user can judge it.' }),
    demo: z.boolean().meta({ description: 'True when the row is demo data and not from a real register.' }),
    match_score: z
      .number()
      .min(0)
      .max(1)
      .optional()
      .meta({ description: 'How closely the provider name matched (1 = exact after normalisation).' }),
    register_status: z.string().nullable().meta({
      description:
        'The status as the source words it ("Authorised", "Deemed authorised"); null when the source states none, and authorised is then false.',
    }),
    register_url: z.string().nullable().meta({
      description:
        "The regulator's public page for this entry, to check it by hand: the FCA register searched by FRN, the BaFin company database searched by name; null where the identifier allows none (ACAM codes, demo rows).",
    }),
  })
  .meta({ id: 'Insurer' });
export type TInsurer = z.infer<typeof ZInsurerSchema>;

export const ZCheckSchema = z
  .object({
    source: ZCheckSourceSchema,
    outcome: z.enum(CHECK_OUTCOMES),
    detail: z.string(),
  })
  .meta({ id: 'Check', description: 'One check that ran and what it found, in plain words.' });
export type TCheck = z.infer<typeof ZCheckSchema>;

export const ZCoverageSchema = z
  .object({
    start_date: z.string().nullable(),
    end_date: z.string().nullable(),
    registry_status: z.enum(REGISTRY_STATUSES),
  })
  .meta({ id: 'Coverage', description: 'What the registry holds for the policy (dates YYYY-MM-DD), when it knows it.' });
export type TCoverage = z.infer<typeof ZCoverageSchema>;

export const ZVerificationResultSchema = z
  .object({
    status: ZVerificationStatusSchema,
    confidence_score: z.number().min(0).max(1).meta({ description: '0.0 to 1.0, two decimals. Above 0.7 is a strong match.' }),
    verification_sources: z.array(ZVerificationSourceSchema).meta({
      description:
        "Checks that ran, in the order they ran, in the spec's three values (the register check is fca_register for every country; see checks[] for which register and for sanctions).",
    }),
    insurer: ZInsurerSchema.nullable(),
    flags: z.array(ZFlagSchema),
    credits_charged: z
      .number()
      .int()
      .min(0)
      .max(1)
      .meta({ description: '1 on verified or unverified, 0 on inconclusive, on error and for sandbox keys.' }),
    processed_in_ms: z.number().int().min(0),
    policy_number: z.string().meta({ description: 'The policy number as normalised for matching (upper case, no spaces or dashes).' }),
    country: ZCountrySchema,
    insurance_type: ZInsuranceTypeSchema,
    checks: z.array(ZCheckSchema).meta({ description: 'Per-check outcome with a readable explanation.' }),
    coverage: ZCoverageSchema.nullable(),
  })
  .meta({ id: 'VerificationResult' });
export type TVerificationResult = z.infer<typeof ZVerificationResultSchema>;
