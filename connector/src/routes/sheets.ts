/**
 * Sheets: the service account to share sheets with, spreadsheet bindings (issue 17, item 5) and
 * scheduled dataset refreshes (issue 7).
 */
import crypto from 'node:crypto';
import type { z } from 'zod';
import {
  BINDING_METADATA_KEY,
  ZScheduleRequestSchema,
  ZSheetBindingRequestSchema,
  type TSchedule,
  type TSheetBinding,
  type TSheetBindingIssued,
} from '../../../shared/sheets.js';
import type { AppContext } from '../context.js';
import { AppError } from '../errors.js';
import { currentKey, requireScope } from '../http/auth.js';
import type { ScheduleRecord, SheetBindingRecord } from '../store/types.js';
import type { KeyedRoute } from './types.js';

const notConfigured = () => new AppError('service_unavailable', 'Google Sheets is not configured on this connector (no GOOGLE_APPLICATION_CREDENTIALS).');

function parse<T extends z.ZodType>(schema: T, body: unknown): z.output<T> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new AppError('invalid_request', `${issue.path.join('.') || 'body'}: ${issue.message}`);
}

function bindingView(b: SheetBindingRecord): TSheetBinding {
  return { binding_id: b.id, spreadsheet_id: b.spreadsheet_id, status: b.status, metadata_key: BINDING_METADATA_KEY, created_at: b.created_at, verified_at: b.verified_at };
}

export function sheetRoutes(ctx: AppContext): KeyedRoute[] {
  const sheets = () => {
    if (!ctx.sheets) throw notConfigured();
    return ctx.sheets;
  };
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
          const { serviceEmail } = sheets();
          res.json({
            email: serviceEmail,
            note: `Share the target spreadsheet with ${serviceEmail} as an editor, then connect it to your key from the spreadsheet (Extensions > Covercheck > Connect this spreadsheet); results and schedules are written as this account.`,
          });
        },
      ],
    },
    {
      // Any valid key may bind: the scopes that write (verify, extract, datasets) still gate sheet_target and schedules.
      method: 'post',
      path: '/sheets/bindings',
      // The token is shown once and kept only as its hash: never in the idempotency table. A repeat
      // simply issues a new token, which replaces the old one.
      unstored: true,
      handlers: [
        async (req, res) => {
          const body = parse(ZSheetBindingRequestSchema, req.body);
          const { binding, token } = await sheets().bindings.issue(currentKey(res).id, body.spreadsheet_id);
          const { created_at, verified_at, ...head } = bindingView(binding);
          const issued: TSheetBindingIssued = { ...head, metadata_value: token, created_at, verified_at };
          res.status(201).json(issued);
        },
      ],
    },
    {
      method: 'post',
      path: '/sheets/bindings/:binding_id/verify',
      handlers: [
        async (req, res) => {
          res.json(bindingView(await sheets().bindings.verify(currentKey(res).id, String(req.params.binding_id))));
        },
      ],
    },
    {
      method: 'get',
      path: '/sheets/bindings',
      handlers: [
        async (_req, res) => {
          res.json({ bindings: (await sheets().bindings.list(currentKey(res).id)).map(bindingView) });
        },
      ],
    },
    {
      method: 'get',
      path: '/sheets/bindings/:binding_id',
      handlers: [
        async (req, res) => {
          res.json(bindingView(await sheets().bindings.get(currentKey(res).id, String(req.params.binding_id))));
        },
      ],
    },
    {
      method: 'delete',
      path: '/sheets/bindings/:binding_id',
      handlers: [
        async (req, res) => {
          await sheets().bindings.remove(currentKey(res).id, String(req.params.binding_id));
          res.status(204).end();
        },
      ],
    },
    {
      method: 'post',
      path: '/sheets/schedules',
      handlers: [
        requireScope('datasets'),
        async (req, res) => {
          const { bindings, schedules } = sheets();
          const body = parse(ZScheduleRequestSchema, req.body);
          if (!(await ctx.store.datasets.get(body.dataset))) throw new AppError('not_found', `No dataset "${body.dataset}".`);
          await bindings.require(currentKey(res).id, body.spreadsheet_id);
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
          schedules.notify();
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
