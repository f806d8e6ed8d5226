/** Sheets: the service account to share sheets with, and scheduled dataset refreshes (issue 7). */
import crypto from 'node:crypto';
import { ZScheduleRequestSchema, type TSchedule } from '../../../shared/sheets.js';
import type { AppContext } from '../context.js';
import { AppError } from '../errors.js';
import { currentKey, requireScope } from '../http/auth.js';
import type { ScheduleRecord } from '../store/types.js';
import type { KeyedRoute } from './types.js';

const notConfigured = () => new AppError('service_unavailable', 'Google Sheets is not configured on this connector (no GOOGLE_APPLICATION_CREDENTIALS).');

export function sheetRoutes(ctx: AppContext): KeyedRoute[] {
  const view = async (s: ScheduleRecord): Promise<TSchedule> => ({
    schedule_id: s.id,
    dataset: s.dataset,
    spreadsheet_id: s.spreadsheet_id,
    sheet_name: s.sheet_name,
    cadence: s.cadence,
    limit: s.point_limit,
    next_run_at: s.next_run_at,
    created_at: s.created_at,
    runs: await ctx.store.schedules.runs(s.id, 20),
  });
  return [
    {
      method: 'get',
      path: '/sheets/service-account',
      handlers: [
        (_req, res) => {
          if (!ctx.sheets) throw notConfigured();
          res.json({ email: ctx.sheets.serviceEmail, note: `Share the target spreadsheet with ${ctx.sheets.serviceEmail} as an editor; results and schedules are written as this account.` });
        },
      ],
    },
    {
      method: 'post',
      path: '/sheets/schedules',
      handlers: [
        requireScope('datasets'),
        async (req, res) => {
          if (!ctx.sheets) throw notConfigured();
          const parsed = ZScheduleRequestSchema.safeParse(req.body);
          if (!parsed.success) {
            const issue = parsed.error.issues[0]!;
            throw new AppError('invalid_request', `${issue.path.join('.') || 'body'}: ${issue.message}`);
          }
          const body = parsed.data;
          if (!(await ctx.store.datasets.get(body.dataset))) throw new AppError('not_found', `No dataset "${body.dataset}".`);
          const now = ctx.now().toISOString();
          const record = {
            id: `sch_${crypto.randomUUID().replace(/-/g, '').slice(0, 20)}`,
            key_id: currentKey(res).id,
            dataset: body.dataset,
            spreadsheet_id: body.spreadsheet_id,
            sheet_name: body.sheet_name,
            cadence: body.cadence,
            point_limit: body.limit,
            // The first run happens at once: the sheet is filled when the schedule is made.
            next_run_at: now,
            created_at: now,
          };
          await ctx.store.schedules.create(record);
          ctx.sheets.schedules.notify();
          res.status(201).json(await view({ ...record, running_until: null }));
        },
      ],
    },
    {
      method: 'get',
      path: '/sheets/schedules',
      handlers: [
        async (_req, res) => {
          const list = await ctx.store.schedules.list(currentKey(res).id);
          res.json({ schedules: await Promise.all(list.map(view)) });
        },
      ],
    },
    {
      method: 'get',
      path: '/sheets/schedules/:schedule_id',
      handlers: [
        async (req, res) => {
          const s = await ctx.store.schedules.get(String(req.params.schedule_id));
          if (!s || s.key_id !== currentKey(res).id) throw new AppError('not_found', `No schedule ${req.params.schedule_id} for this API key.`);
          res.json(await view(s));
        },
      ],
    },
    {
      method: 'delete',
      path: '/sheets/schedules/:schedule_id',
      handlers: [
        async (req, res) => {
          if (!(await ctx.store.schedules.delete(String(req.params.schedule_id), currentKey(res).id))) {
            throw new AppError('not_found', `No schedule ${req.params.schedule_id} for this API key.`);
          }
          res.status(204).end();
        },
      ],
    },
  ];
}
