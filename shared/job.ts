/** Jobs (spec 2.3): async verification and document extraction. */
import { z } from 'zod';
import { MOTOR_COVER_LEVELS, TRAVEL_REGIONS, TRIP_TYPES } from './coverage-terms.js';
import { ZErrorBodySchema } from './errors.js';
import { INSURANCE_TYPES } from './insurance-types.js';
import { ZVerificationResultSchema } from './verification.js';
import { ZSheetWritebackSchema } from './sheets.js';
import { ZWebhookStateSchema } from './webhook-state.js';

export const ZJobStatusSchema = z.enum(['pending', 'complete', 'failed']).meta({
  id: 'JobStatus',
  description: 'pending (queued or running) -> complete | failed. complete and failed are final.',
});
export type TJobStatus = z.infer<typeof ZJobStatusSchema>;

export const ZJobKindSchema = z.enum(['verification', 'extraction']).meta({ id: 'JobKind' });
export type TJobKind = z.infer<typeof ZJobKindSchema>;

export const EXTRACTED_FIELDS = ['policy_number', 'insurer', 'insurance_type', 'start_date', 'end_date', 'vehicle_registration'] as const;
const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);

const confidence = z
  .number()
  .min(0)
  .max(1)
  .meta({ description: 'How sure the reading is, 0 to 1, on the same scale as the top-level `confidence`.' });
const printed = z.string().optional().meta({
  description:
    'The wording as printed on the document ("Vollkasko", "Tiers étendu"); absent when the value was inferred (a trip type from the length of the cover period).',
});

/**
 * Coverage details read from a document (spec 4.4; not the registry's Coverage of a verification result): each read only from documents of its insurance type, each with its own
 * confidence inside it, so the top-level `confidence` keeps one entry per top-level field.
 */
export const ZDocumentCoverageSchema = z
  .object({
    motor_cover: z
      .object({ value: z.enum(MOTOR_COVER_LEVELS), printed, confidence })
      .optional()
      .meta({
        description:
          'Motor cover level: third_party (Haftpflicht, au tiers), third_party_fire_theft (Teilkasko, tiers étendu), comprehensive (Vollkasko, tous risques).',
      }),
    trip_type: z
      .object({ value: z.enum(TRIP_TYPES), printed, confidence })
      .optional()
      .meta({ description: 'Travel: one trip, or every trip within the year (annual multi-trip).' }),
    region: z
      .object({ value: z.enum(TRAVEL_REGIONS), printed, confidence })
      .optional()
      .meta({
        description:
          'Travel area: domestic (the home country only), europe, worldwide_excluding_usa (without the USA and Canada), worldwide.',
      }),
    health_plan: z
      .object({
        value: z.string().min(1).meta({
          description: 'The plan, tariff or level name as printed ("Treatment and Care", "Komfort Plus (KVS2)", "Formule Confort").',
        }),
        confidence,
      })
      .optional()
      .meta({ description: 'Health: the plan or level of cover.' }),
  })
  .meta({
    id: 'DocumentCoverage',
    description:
      'Coverage details found on an extracted document, each with its own confidence; ExtractedFields.coverage is absent when none was found. An addition to spec 2.3: clients that ignore it read the other fields as before.',
  });
export type TDocumentCoverage = z.infer<typeof ZDocumentCoverageSchema>;

/** What an uploaded document is: an insurance document, or one of the documents people upload in its place. */
export const DOCUMENT_TYPES = ['insurance', 'invoice', 'bank_statement', 'letter', 'other'] as const;
export type TDocumentType = (typeof DOCUMENT_TYPES)[number];

export const ZDocumentTypeSchema = z.object({ value: z.enum(DOCUMENT_TYPES), confidence }).meta({
  id: 'DocumentType',
  description:
    "Whether the document is an insurance document (a policy, certificate, schedule, attestation, premium notice, or a letter about one) and how sure that is. For any other value no field is returned: nothing read from an invoice, a bank statement or an unrelated letter is a policy's. An addition to spec 2.3: clients that ignore it read the other fields as before.",
});
export type TDocumentTypeResult = z.infer<typeof ZDocumentTypeSchema>;

/** Fields extracted from a policy PDF. A field not found is left out; `confidence` has one entry per present field. */
export const ZExtractedFieldsSchema = z
  .object({
    policy_number: z.string().optional(),
    insurer: z.string().optional().meta({ description: "The register's canonical name when matched, else the text as found." }),
    insurance_type: z.enum(INSURANCE_TYPES).optional(),
    start_date: isoDate.optional(),
    end_date: isoDate.optional(),
    vehicle_registration: z.string().optional(),
    confidence: z.record(z.string(), z.number().min(0).max(1)).meta({ description: 'Per-field confidence, 0 to 1.' }),
    // No .meta() here: a description on the optional wrapper would inline the schema instead of referencing DocumentCoverage.
    coverage: ZDocumentCoverageSchema.optional(),
    document_type: ZDocumentTypeSchema.optional(),
  })
  .meta({ id: 'ExtractedFields' });
export type TExtractedFields = z.infer<typeof ZExtractedFieldsSchema>;

export const ZJobSchema = z
  .object({
    job_id: z.uuid(),
    status: ZJobStatusSchema,
    kind: ZJobKindSchema,
    poll_url: z.string().optional(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
    completed_at: z.iso.datetime().nullable(),
    result: z.union([ZVerificationResultSchema, ZExtractedFieldsSchema]).optional().meta({
      description: 'When complete: the verification result (2.2) for kind verification, the extracted fields (2.3) for kind extraction.',
    }),
    error: ZErrorBodySchema.optional().meta({ description: 'When failed: why, in the standard error form.' }),
    document: z
      .object({
        bytes: z.number().int(),
        extraction: z.enum(['not_available', 'complete', 'failed']),
        detail: z.string(),
        fields: ZExtractedFieldsSchema.optional().meta({ description: 'What was read from the document, when extraction completed.' }),
        mismatches: z
          .array(z.enum(['policy_number', 'insurer', 'insurance_type']))
          .optional()
          .meta({ description: 'Submitted fields the document contradicts; any mismatch adds the document_mismatch flag to the result.' }),
      })
      .optional()
      .meta({
        description:
          'Only on an async verification sent with a document: what happened to it. Never on an extraction job, whose PDF is the job itself.',
      }),
    webhook: ZWebhookStateSchema.optional().meta({
      description: 'The callback, when one was given: its delivery state (null until the job finishes).',
    }),
    sheet_writeback: ZSheetWritebackSchema.nullable()
      .optional()
      .meta({ description: 'When a sheet_target was given: null until the job finishes, then the write-back state.' }),
  })
  .meta({ id: 'Job' });
export type TJob = z.infer<typeof ZJobSchema>;

export const ZJobAcceptedSchema = z
  .object({
    job_id: z.uuid(),
    status: z.literal('pending'),
    poll_url: z.string().meta({ example: '/api/v1/jobs/2f1d0b7e-4a53-4c4e-9b7e-1f0c6f0f3a11' }),
  })
  .meta({ id: 'JobAccepted' });
export type TJobAccepted = z.infer<typeof ZJobAcceptedSchema>;

/** The answer to DELETE /api/v1/jobs/{job_id}: what was erased (docs/personal-data.md). */
export const ZJobDeletedSchema = z
  .object({
    job_id: z.uuid(),
    deleted: z.literal(true),
    document_bytes: z
      .number()
      .int()
      .min(0)
      .meta({ description: "Bytes of the uploaded PDF erased with the job, taken off the key's document quota; 0 when none was held." }),
    deleted_at: z.iso.datetime(),
  })
  .meta({ id: 'JobDeleted' });
export type TJobDeleted = z.infer<typeof ZJobDeletedSchema>;
