/**
 * Sheets: the service account to share sheets with, spreadsheet bindings (docs/sheets-binding.md)
 * and scheduled dataset refreshes into bound spreadsheets.
 */
import { ZScheduleRequestSchema, ZScheduleResumeRequestSchema, ZSheetBindingRequestSchema } from '../../../shared/sheets.js';
import type { AppContext } from '../context.js';
import { AppError } from '../errors.js';
import { currentKey, requireScope } from '../http/auth.js';
import { parseOrRefuse } from '../parse.js';
import { createSchedule, deleteSchedule, getSchedule, listSchedules, resumeSchedule } from '../sheets/schedules.js';
import { bindingView, issuedBindingView } from '../sheets/views.js';
import type { KeyedRoute } from './types.js';

const notConfigured = () => new AppError('service_unavailable', 'Google Sheets is not configured on this connector (no GOOGLE_APPLICATION_CREDENTIALS).');

export function sheetRoutes(ctx: AppContext): KeyedRoute[] {
  const sheets = () => {
    if (!ctx.sheets) throw notConfigured();
    return ctx.sheets;
  };
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
          const body = parseOrRefuse(ZSheetBindingRequestSchema, req.body);
          const { binding, token } = await sheets().bindings.issue(currentKey(res).id, body.spreadsheet_id);
          res.status(201).json(issuedBindingView(binding, token));
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
          const body = parseOrRefuse(ZScheduleRequestSchema, req.body);
          res.status(201).json(await createSchedule(currentKey(res).id, body, { store: ctx.store, bindings, notify: () => schedules.notify(), now: ctx.now }));
        },
      ],
    },
    {
      method: 'get',
      path: '/sheets/schedules',
      handlers: [
        async (_req, res) => {
          res.json({ schedules: await listSchedules(currentKey(res).id, ctx.store) });
        },
      ],
    },
    {
      method: 'get',
      path: '/sheets/schedules/:schedule_id',
      handlers: [
        async (req, res) => {
          res.json(await getSchedule(currentKey(res).id, String(req.params.schedule_id), ctx.store));
        },
      ],
    },
    {
      method: 'post',
      path: '/sheets/schedules/:schedule_id/resume',
      handlers: [
        requireScope('datasets'),
        async (req, res) => {
          const { schedules } = sheets();
          parseOrRefuse(ZScheduleResumeRequestSchema, req.body ?? {});
          res.json(await resumeSchedule(currentKey(res).id, String(req.params.schedule_id), { store: ctx.store, notify: () => schedules.notify(), now: ctx.now }));
        },
      ],
    },
    {
      method: 'delete',
      path: '/sheets/schedules/:schedule_id',
      handlers: [
        async (req, res) => {
          await deleteSchedule(currentKey(res).id, String(req.params.schedule_id), ctx.store);
          res.status(204).end();
        },
      ],
    },
  ];
}
