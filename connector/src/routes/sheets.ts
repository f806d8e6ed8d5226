/**
 * Sheets: the service account to share sheets with, spreadsheet bindings (docs/sheets-binding.md)
 * and scheduled dataset refreshes into bound spreadsheets.
 */
import { ROUTES } from '../../../shared/routes/index.js';
import type { AppContext } from '../context.js';
import { AppError } from '../errors.js';
import { currentKey } from '../http/auth.js';
import { parseOrRefuse } from '../parse.js';
import { createSchedule, deleteSchedule, getSchedule, listSchedules, resumeSchedule } from '../sheets/schedules.js';
import { bindingView, issuedBindingView } from '../sheets/views.js';
import type { RouteHandlers } from './types.js';

const notConfigured = () =>
  new AppError('service_unavailable', 'Google Sheets is not configured on this connector (no GOOGLE_APPLICATION_CREDENTIALS).');

type SheetRoute =
  | 'serviceAccount'
  | 'bindingCreate'
  | 'bindingVerify'
  | 'bindingList'
  | 'bindingGet'
  | 'bindingDelete'
  | 'scheduleCreate'
  | 'scheduleList'
  | 'scheduleGet'
  | 'scheduleResume'
  | 'scheduleDelete';

export function sheetHandlers(ctx: AppContext): RouteHandlers<SheetRoute> {
  const sheets = () => {
    if (!ctx.sheets) throw notConfigured();
    return ctx.sheets;
  };
  return {
    serviceAccount: [
      (_req, res) => {
        const { serviceEmail } = sheets();
        res.json({
          email: serviceEmail,
          note: `Share the target spreadsheet with ${serviceEmail} as an editor, then connect it to your key from the spreadsheet (Extensions > Covercheck > Connect this spreadsheet); results and schedules are written as this account.`,
        });
      },
    ],
    bindingCreate: [
      async (req, res) => {
        const body = parseOrRefuse(ROUTES.bindingCreate.request.body, req.body);
        const { binding, token } = await sheets().bindings.issue(currentKey(res).id, body.spreadsheet_id);
        res.status(201).json(issuedBindingView(binding, token));
      },
    ],
    bindingVerify: [
      async (req, res) => {
        res.json(bindingView(await sheets().bindings.verify(currentKey(res).id, String(req.params.binding_id))));
      },
    ],
    bindingList: [
      async (_req, res) => {
        res.json({ bindings: (await sheets().bindings.list(currentKey(res).id)).map(bindingView) });
      },
    ],
    bindingGet: [
      async (req, res) => {
        res.json(bindingView(await sheets().bindings.get(currentKey(res).id, String(req.params.binding_id))));
      },
    ],
    bindingDelete: [
      async (req, res) => {
        await sheets().bindings.remove(currentKey(res).id, String(req.params.binding_id));
        res.status(204).end();
      },
    ],
    scheduleCreate: [
      async (req, res) => {
        const { bindings, schedules } = sheets();
        const body = parseOrRefuse(ROUTES.scheduleCreate.request.body, req.body);
        res
          .status(201)
          .json(
            await createSchedule(currentKey(res).id, body, { store: ctx.store, bindings, notify: () => schedules.notify(), now: ctx.now }),
          );
      },
    ],
    scheduleList: [
      async (_req, res) => {
        res.json({ schedules: await listSchedules(currentKey(res).id, ctx.store) });
      },
    ],
    scheduleGet: [
      async (req, res) => {
        res.json(await getSchedule(currentKey(res).id, String(req.params.schedule_id), ctx.store));
      },
    ],
    scheduleResume: [
      async (req, res) => {
        const { schedules } = sheets();
        // The body is optional: none reads as {}.
        parseOrRefuse(ROUTES.scheduleResume.request.body, req.body ?? {});
        res.json(
          await resumeSchedule(currentKey(res).id, String(req.params.schedule_id), {
            store: ctx.store,
            notify: () => schedules.notify(),
            now: ctx.now,
          }),
        );
      },
    ],
    scheduleDelete: [
      async (req, res) => {
        await deleteSchedule(currentKey(res).id, String(req.params.schedule_id), ctx.store);
        res.status(204).end();
      },
    ],
  };
}
