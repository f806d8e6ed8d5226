/** Sheet write-back targets, scheduled dataset refreshes and spreadsheet bindings. */
import { z } from 'zod';
import { COVERAGE_FIELDS } from './coverage-terms.js';
import { OUTPUT_MODES } from './series-modes.js';

/**
 * Scheduled refreshes behave alike on both sides (the add-on's own triggers and the connector's schedules): each
 * keeps this many runs of history, and pauses itself after this many failed runs in a row (the connector's
 * COVERCHECK_SCHEDULE_PAUSE_AFTER can change its default).
 */
export const SCHEDULE_RUNS_KEPT = 30;
export const SCHEDULE_PAUSE_AFTER_FAILURES = 3;

const column = z.string().regex(/^[A-Z]{1,3}$/, 'a column letter such as A or AB');
const spreadsheetId = z
  .string()
  .regex(/^[A-Za-z0-9_-]{10,100}$/, 'a spreadsheet id (from the sheet URL: /spreadsheets/d/<spreadsheet_id>/edit)');

/**
 * Where the connector writes a job's or batch's results when they are done, through the Sheets
 * API as its service account (share the sheet with GET /api/v1/sheets/service-account's address).
 * The spreadsheet must be bound to the key (POST /api/v1/sheets/bindings).
 * Each result goes to the row whose key column still holds its policy number, so a sheet sorted
 * or edited meanwhile gets no result in the wrong row. Rows that vanished are reported, not guessed.
 */
export const ZSheetTargetSchema = z
  .object({
    spreadsheet_id: spreadsheetId.meta({
      description: 'From the sheet URL: /spreadsheets/d/<spreadsheet_id>/edit. Must be bound to the key.',
    }),
    sheet_name: z.string().min(1).max(100),
    key_column: column.meta({ description: 'Column holding the policy number of each row.' }),
    header_rows: z.number().int().min(0).max(50).default(1).meta({ description: 'Rows at the top that are never written (default 1).' }),
    columns: z
      .record(z.string(), column)
      .refine((m) => Object.keys(m).length > 0, 'map at least one field to a column')
      .meta({
        description:
          'Field -> column letter. Verification: status, confidence_score, insurer, flags, checked_at. Extraction: policy_number, insurer, insurance_type, start_date, end_date, vehicle_registration; the coverage details motor_cover, trip_type, region (normalised values) and health_plan (as printed); needs_review (the values read below confidence 0.9, by label, for a person to check).',
      }),
  })
  .strict()
  .meta({ id: 'SheetTarget' });
export type TSheetTarget = z.output<typeof ZSheetTargetSchema>;

export const VERIFICATION_COLUMNS = ['status', 'confidence_score', 'insurer', 'flags', 'checked_at'] as const;
/**
 * Extraction writes the fields, each coverage detail under its own name (the contract's `coverage` keys,
 * which no field shares), and `needs_review`: the connector writes unattended, so instead of holding
 * low-confidence values back it names them in that column (shared/review.ts, the add-on's rule).
 */
export const EXTRACTION_COLUMNS = [
  'policy_number',
  'insurer',
  'insurance_type',
  'start_date',
  'end_date',
  'vehicle_registration',
  ...COVERAGE_FIELDS,
  'needs_review',
] as const;

export const ZSheetWritebackSchema = z
  .object({
    status: z.enum(['pending', 'written', 'failed']),
    spreadsheet_id: z.string(),
    sheet_name: z.string(),
    written: z.number().int().meta({ description: 'Results written.' }),
    missing: z.array(z.string()).meta({ description: 'Policy numbers no longer found in the key column: nothing was written for them.' }),
    error: z.string().nullable(),
    attempts: z.number().int(),
    updated_at: z.string(),
  })
  .meta({ id: 'SheetWriteback' });
export type TSheetWriteback = z.infer<typeof ZSheetWritebackSchema>;

export const SCHEDULE_CADENCES = ['hourly', 'daily', 'weekly'] as const;
/**
 * How a refresh writes the series into columns A:B (date, value); columns beside them are never
 * touched. overwrite: the latest points from row 2, older rows' A:B blanked. append: only points
 * dated after the latest date already in column A, below the data. merge: on the date in column A,
 * a changed value is updated in its row, dates not there yet are added below (sorted).
 */
export const SCHEDULE_OUTPUT_MODES = OUTPUT_MODES;
export const ZScheduleOutputModeSchema = z.enum(SCHEDULE_OUTPUT_MODES).meta({
  id: 'ScheduleOutputMode',
  description:
    'overwrite (default): latest points from row 2. append: only points after the latest date in column A. merge: update rows whose date exists, add the rest. Only columns A:B are written.',
});
export type TScheduleOutputMode = z.infer<typeof ZScheduleOutputModeSchema>;

export const ZScheduleRequestSchema = z
  .object({
    dataset: z.string().min(1).max(100).meta({ description: 'Dataset slug.' }),
    spreadsheet_id: spreadsheetId.meta({ description: 'Must be bound to the key.' }),
    sheet_name: z.string().min(1).max(100),
    cadence: z.enum(SCHEDULE_CADENCES),
    limit: z.number().int().min(1).max(5000).default(5000).meta({ description: 'Latest points written (default 5000).' }),
    mode: ZScheduleOutputModeSchema.default('overwrite'),
  })
  .strict()
  .meta({ id: 'ScheduleRequest' });
/** A schedule request as parsed (limit and mode defaulted). */
export type TScheduleRequest = z.output<typeof ZScheduleRequestSchema>;

/** POST /sheets/schedules/{id}/resume takes no fields (an empty object or no body). */
export const ZScheduleResumeRequestSchema = z.object({}).strict().meta({ id: 'ScheduleResumeRequest' });

export const ZScheduleRunSchema = z
  .object({
    started_at: z.string(),
    finished_at: z.string().nullable(),
    status: z.enum(['running', 'ok', 'failed']),
    rows: z.number().int().nullable(),
    error: z.string().nullable(),
  })
  .meta({ id: 'ScheduleRun' });

export const ZScheduleSchema = z
  .object({
    schedule_id: z.string(),
    dataset: z.string(),
    spreadsheet_id: z.string(),
    sheet_name: z.string(),
    cadence: z.enum(SCHEDULE_CADENCES),
    limit: z.number().int(),
    mode: ZScheduleOutputModeSchema,
    next_run_at: z.string(),
    created_at: z.string(),
    paused: z
      .boolean()
      .meta({ description: 'True when the schedule paused itself after failed runs in a row; it does not run until resumed.' }),
    paused_reason: z.string().nullable().meta({ description: 'Why it paused (with the last error); null when not paused.' }),
    failures_in_row: z.number().int().meta({ description: 'Failed runs since the last good run or resume.' }),
    runs: z.array(ZScheduleRunSchema).meta({ description: 'Latest runs first (at most 30).' }),
  })
  .meta({ id: 'Schedule' });
export type TSchedule = z.infer<typeof ZScheduleSchema>;

export const ZScheduleListSchema = z.object({ schedules: z.array(ZScheduleSchema) }).meta({ id: 'ScheduleList' });
export const ZServiceAccountSchema = z
  .object({ email: z.string(), note: z.string() })
  .meta({ id: 'ServiceAccount', description: 'Share target sheets with this address as an editor.' });

// ---- Bindings: which key may write into which spreadsheet (docs/sheets-binding.md) ----------

/** The developer-metadata key under which the add-on stores a binding token in the spreadsheet. */
export const BINDING_METADATA_KEY = 'covercheck.binding';

export const ZSheetBindingRequestSchema = z.object({ spreadsheet_id: spreadsheetId }).strict().meta({ id: 'SheetBindingRequest' });

export const SHEET_BINDING_STATUSES = ['pending', 'active'] as const;

export const ZSheetBindingSchema = z
  .object({
    binding_id: z.string(),
    spreadsheet_id: z.string(),
    status: z.enum(SHEET_BINDING_STATUSES).meta({
      description:
        'pending: issued (or re-issued), its token not found in the spreadsheet at the last check. active: found, the key may write into the spreadsheet.',
    }),
    metadata_key: z.literal(BINDING_METADATA_KEY),
    created_at: z.string(),
    verified_at: z.string().nullable().meta({ description: 'When the token was last found in the spreadsheet; null until then.' }),
  })
  .meta({ id: 'SheetBinding' });
export type TSheetBinding = z.infer<typeof ZSheetBindingSchema>;

export const ZSheetBindingIssuedSchema = z
  .object({
    ...ZSheetBindingSchema.shape,
    metadata_value: z
      .string()
      .regex(/^cvb_[A-Za-z0-9_-]{22,}$/)
      .meta({
        description:
          'The binding token, shown only in this response. Written by an editor of the spreadsheet (the add-on) as DOCUMENT-visible developer metadata under metadata_key, then POST .../verify.',
      }),
  })
  .meta({ id: 'SheetBindingIssued' });
export type TSheetBindingIssued = z.infer<typeof ZSheetBindingIssuedSchema>;

export const ZSheetBindingListSchema = z.object({ bindings: z.array(ZSheetBindingSchema) }).meta({ id: 'SheetBindingList' });
