/**
 * Watches (docs/monitoring.md): a key's policies re-verified on a cadence, each run reporting what
 * changed since the one before, to a signed webhook, an e-mail digest and/or a bound spreadsheet.
 */
import { z } from 'zod';
import { ZFlagSchema, ZVerificationStatusSchema } from './verification.js';
import { ZVerifyRequestSchema } from './policy.js';
import { ZSheetTargetSchema } from './sheets.js';

import { MAX_EXPIRY_WINDOW_DAYS, MAX_WATCH_POLICIES, WATCH_CADENCES, type TWatchCadence } from './watch-limits.js';

export { MAX_EXPIRY_WINDOW_DAYS, MAX_WATCH_POLICIES, WATCH_CADENCES, type TWatchCadence };
/** Runs a watch's cadence makes in a month, at most (31 days): what projected_monthly_credits counts. */
export const RUNS_PER_MONTH: Record<TWatchCadence, number> = { daily: 31, weekly: 5 };
/** The sheet a watch with a sheet_target appends its changes to, in the target's spreadsheet. */
export const WATCH_CHANGES_SHEET = 'Changes';
/** The Changes sheet's columns, A to F. The last is the change's id, so a line is never appended twice. */
export const WATCH_CHANGES_HEADER = ['time', 'row', 'policy', 'before -> after', 'why', 'change id'] as const;
/** Changes a watch's view shows of its last run; every change goes to the webhook, the e-mail and the sheet. */
export const WATCH_CHANGES_SHOWN = 100;

/**
 * Why a policy is reported, each against its state at the run before: its verification status changed; its
 * cover ended; its end date came within the expiry window; the registry shows it cancelled; its insurer is
 * no longer authorised; its insurer is on a sanctions list.
 */
export const WATCH_CHANGE_REASONS = [
  'status_changed',
  'newly_expired',
  'entering_expiry_window',
  'cancelled',
  'insurer_not_authorised',
  'insurer_sanctioned',
] as const;
export type TWatchChangeReason = (typeof WATCH_CHANGE_REASONS)[number];

/**
 * One watched policy: the batch item shape, and optionally the cover's end date as the key knows it (from
 * the policy document, say), used when the registry gives none.
 */
const END_DATE = {
  end_date: z.iso
    .date()
    .optional()
    .meta({ description: "The cover's end date (YYYY-MM-DD) as the key knows it; the registry's, when it gives one, wins." }),
};
const [withType, withAlias] = ZVerifyRequestSchema.options;
export const ZWatchPolicySchema = z
  .union([withType.extend(END_DATE), withAlias.extend(END_DATE)])
  .meta({ id: 'WatchPolicy', description: 'One policy, as a batch item, with an optional end_date.' });

export const ZWatchReportSchema = z
  .strictObject({
    webhook_url: z
      .string()
      .optional()
      .meta({ description: 'HTTPS URL called with a signed watch.run.changed event after each run that changed something.' }),
    email: z
      .boolean()
      .default(false)
      .meta({ description: "Mail a digest of each run's changes to the key's e-mail address (the key must have one)." }),
    sheet_target: ZSheetTargetSchema.optional().meta({
      description:
        'A bound spreadsheet: the changed rows\' status cells are updated in place (verification columns) and each change is appended to its "Changes" sheet.',
    }),
  })
  .meta({ id: 'WatchReport' });

export const ZWatchRequestSchema = z
  .strictObject({
    policies: z
      .array(ZWatchPolicySchema)
      .min(1)
      .max(MAX_WATCH_POLICIES)
      .meta({
        description: `1 to ${MAX_WATCH_POLICIES.toLocaleString('en')} policies. Each is checked as a batch item; one that fails the checks refuses the watch, naming it.`,
      }),
    cadence: z.enum(WATCH_CADENCES),
    expiry_window_days: z
      .number()
      .int()
      .min(0)
      .max(MAX_EXPIRY_WINDOW_DAYS)
      .default(30)
      .meta({ description: 'A policy is reported once when its end date comes within this many days (default 30).' }),
    report: ZWatchReportSchema.optional().meta({ description: 'Where changes go; none: only GET shows them.' }),
    notify_unchanged: z
      .boolean()
      .default(false)
      .meta({ description: 'Report runs that changed nothing too (default false: they send nothing).' }),
  })
  .meta({ id: 'WatchRequest' });
export type TWatchRequest = z.output<typeof ZWatchRequestSchema>;

/** POST /watches/{id}/pause and /resume take no fields (an empty object or no body). */
export const ZWatchActionRequestSchema = z.object({}).strict().meta({ id: 'WatchActionRequest' });

/** A watched policy as a run saw it. */
export const ZWatchPolicyStateSchema = z
  .object({
    status: z
      .union([ZVerificationStatusSchema, z.literal('error')])
      .meta({ description: 'The verification status, or error when the policy was refused.' }),
    end_date: z.string().nullable().meta({ description: "The cover's end date: the registry's, else the one given with the policy." }),
    flags: z.array(ZFlagSchema),
    checked_at: z.string(),
  })
  .meta({ id: 'WatchPolicyState' });

export const ZWatchChangeSchema = z
  .object({
    index: z.number().int().min(0).meta({ description: "The policy's position in the watch's policies." }),
    policy_number: z.string(),
    before: ZWatchPolicyStateSchema,
    after: ZWatchPolicyStateSchema,
    reasons: z.array(z.enum(WATCH_CHANGE_REASONS)).min(1),
    why: z.string().meta({ description: 'The reasons in words.' }),
  })
  .meta({ id: 'WatchChange' });
export type TWatchChange = z.infer<typeof ZWatchChangeSchema>;

export const ZWatchRunSchema = z
  .object({
    run_id: z.string(),
    trigger: z.enum(['schedule', 'register_change']).meta({
      description: 'schedule: the cadence (every policy). register_change: an import changed an insurer (only the policies it concerns).',
    }),
    status: z.enum(['running', 'complete', 'stopped']),
    stop_reason: z
      .string()
      .nullable()
      .meta({ description: 'Why a run stopped before every policy was checked (credits exhausted, the watch paused); null otherwise.' }),
    started_at: z.string(),
    finished_at: z.string().nullable(),
    policies: z.number().int().meta({ description: 'Policies the run was to check.' }),
    checked: z.number().int(),
    changed: z.number().int(),
    credits_charged: z.number().int(),
  })
  .meta({ id: 'WatchRun' });
export type TWatchRun = z.infer<typeof ZWatchRunSchema>;

export const ZWatchSchema = z
  .object({
    watch_id: z.string(),
    status: z.enum(['active', 'paused']),
    cadence: z.enum(WATCH_CADENCES),
    expiry_window_days: z.number().int(),
    policy_count: z.number().int(),
    report: z.object({
      webhook_url: z.string().nullable(),
      email: z.boolean(),
      sheet_target: ZSheetTargetSchema.nullable(),
    }),
    notify_unchanged: z.boolean(),
    created_at: z.string(),
    paused_at: z.string().nullable(),
    next_run_at: z.string().nullable().meta({ description: 'When the cadence runs next; null while paused.' }),
    rechecks_pending: z
      .number()
      .int()
      .meta({ description: 'Policies an import made due for a re-check at once (their insurer changed); checked by the next run.' }),
    projected_monthly_credits: z.number().int().meta({
      description:
        'An upper bound of the credits the cadence spends in a month: policies x runs in 31 days x 1 credit (0 for a sandbox key). Inconclusive results cost nothing; re-checks an import triggers come on top.',
    }),
    last_run: ZWatchRunSchema.extend({
      changes: z.array(ZWatchChangeSchema).meta({
        description: `The first ${WATCH_CHANGES_SHOWN} changes, in policy order; every change went to the webhook, e-mail and sheet.`,
      }),
    })
      .nullable()
      .meta({ description: 'The latest run, or null before the first.' }),
  })
  .meta({ id: 'Watch' });
export type TWatch = z.infer<typeof ZWatchSchema>;

export const ZWatchListSchema = z.object({ watches: z.array(ZWatchSchema) }).meta({ id: 'WatchList' });

/** The data of a watch.run.changed webhook event: the run and every change it found. */
export const ZWatchRunEventSchema = z
  .object({ watch_id: z.string(), run: ZWatchRunSchema, changes: z.array(ZWatchChangeSchema) })
  .meta({ id: 'WatchRunEvent' });
export type TWatchRunEvent = z.infer<typeof ZWatchRunEventSchema>;
