/** Sheet write-back targets and scheduled dataset refreshes (issue 7). */
import { z } from 'zod';

const column = z.string().regex(/^[A-Z]{1,3}$/, 'a column letter such as A or AB');

/**
 * Where the connector writes a job's or batch's results when they are done, through the Sheets
 * API as its service account (share the sheet with GET /api/v1/sheets/service-account's address).
 * Each result goes to the row whose key column still holds its policy number, so a sheet sorted
 * or edited meanwhile gets no result in the wrong row. Rows that vanished are reported, not guessed.
 */
export const ZSheetTargetSchema = z
  .object({
    spreadsheet_id: z.string().regex(/^[A-Za-z0-9_-]{10,100}$/).meta({ description: 'From the sheet URL: /spreadsheets/d/<spreadsheet_id>/edit' }),
    sheet_name: z.string().min(1).max(100),
    key_column: column.meta({ description: 'Column holding the policy number of each row.' }),
    header_rows: z.number().int().min(0).max(50).default(1).meta({ description: 'Rows at the top that are never written (default 1).' }),
    columns: z
      .record(z.string(), column)
      .refine((m) => Object.keys(m).length > 0, 'map at least one field to a column')
      .meta({
        description:
          'Field -> column letter. Verification: status, confidence_score, insurer, flags, checked_at. Extraction: policy_number, insurer, insurance_type, start_date, end_date, vehicle_registration.',
      }),
  })
  .strict()
  .meta({ id: 'SheetTarget' });
export type TSheetTarget = z.output<typeof ZSheetTargetSchema>;

export const VERIFICATION_COLUMNS = ['status', 'confidence_score', 'insurer', 'flags', 'checked_at'] as const;
export const EXTRACTION_COLUMNS = ['policy_number', 'insurer', 'insurance_type', 'start_date', 'end_date', 'vehicle_registration'] as const;

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

export const ZScheduleRequestSchema = z
  .object({
    dataset: z.string().min(1).max(100).meta({ description: 'Dataset slug.' }),
    spreadsheet_id: z.string().regex(/^[A-Za-z0-9_-]{10,100}$/),
    sheet_name: z.string().min(1).max(100),
    cadence: z.enum(SCHEDULE_CADENCES),
    limit: z.number().int().min(1).max(5000).default(5000).meta({ description: 'Latest points written (default 5000).' }),
  })
  .strict()
  .meta({ id: 'ScheduleRequest' });

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
    next_run_at: z.string(),
    created_at: z.string(),
    runs: z.array(ZScheduleRunSchema).meta({ description: 'Latest runs first (at most 20).' }),
  })
  .meta({ id: 'Schedule' });
export type TSchedule = z.infer<typeof ZScheduleSchema>;

export const ZScheduleListSchema = z.object({ schedules: z.array(ZScheduleSchema) }).meta({ id: 'ScheduleList' });
export const ZServiceAccountSchema = z
  .object({ email: z.string(), note: z.string() })
  .meta({ id: 'ServiceAccount', description: 'Share target sheets with this address as an editor.' });
