/**
 * Sheets: the service account to share sheets with, spreadsheet bindings (docs/sheets-binding.md) and
 * scheduled dataset refreshes into bound spreadsheets. Any valid key may bind; the scopes that write
 * (verify, extract, datasets) still gate sheet_target and schedules.
 */
import {
  ZScheduleListSchema,
  ZScheduleRequestSchema,
  ZScheduleResumeRequestSchema,
  ZScheduleSchema,
  ZServiceAccountSchema,
  ZSheetBindingIssuedSchema,
  ZSheetBindingListSchema,
  ZSheetBindingRequestSchema,
  ZSheetBindingSchema,
} from '../sheets.js';
import { ok, refused, SHEET_403, type RouteContract } from './types.js';

const BINDING_DOC = 'docs/sheets-binding.md';
const NOT_CONFIGURED = refused('Sheets not configured on this connector');
/** On the routes that take a body, 503 is also the server's bodies in flight (as impliedErrors words it). */
const NOT_CONFIGURED_OR_BUSY = refused(
  'Sheets not configured on this connector; or service_unavailable: too many request bodies in flight, see Retry-After',
  { retryAfter: true },
);

export const sheetRoutes = {
  serviceAccount: {
    method: 'get',
    path: '/api/v1/sheets/service-account',
    access: 'key',
    summary: 'The Google service account that writes into sheets: share target sheets with it',
    responses: { 200: ok(ZServiceAccountSchema, 'The address'), 503: NOT_CONFIGURED },
  },
  bindingCreate: {
    method: 'post',
    path: '/api/v1/sheets/bindings',
    access: 'key',
    summary: 'Ask to bind a spreadsheet to this key: returns a token for an editor to write into it',
    description:
      'A key may write into a spreadsheet (sheet_target, schedules) only once an editor of the spreadsheet has proved it: the add-on, running ' +
      'as the user, writes metadata_value as DOCUMENT-visible developer metadata under metadata_key on the spreadsheet, then calls .../verify. ' +
      'The token is shown only here; asking again for the same spreadsheet replaces it (the old one stops counting). Any valid key may ask. ' +
      `See ${BINDING_DOC}.`,
    request: { body: ZSheetBindingRequestSchema },
    // The token is shown once and kept only as its hash: never in the idempotency table. A repeat
    // simply issues a new token, which replaces the old one.
    unstored: true,
    responses: { 201: ok(ZSheetBindingIssuedSchema, 'Issued, pending'), 503: NOT_CONFIGURED_OR_BUSY },
  },
  bindingVerify: {
    method: 'post',
    path: '/api/v1/sheets/bindings/:binding_id/verify',
    access: 'key',
    summary: "Look for the binding's token in the spreadsheet now; active when found",
    description:
      'Reads the developer metadata of the spreadsheet through the Sheets API. 403 sheet_not_bound when the token is not there, or the ' +
      'spreadsheet is not shared with the service account, or does not exist: the same answer in every case.',
    responses: {
      200: ok(ZSheetBindingSchema, 'Active'),
      403: refused('sheet_not_bound'),
      503: refused('Sheets not configured, or the Sheets API could not be reached; see Retry-After', { retryAfter: true }),
    },
  },
  bindingList: {
    method: 'get',
    path: '/api/v1/sheets/bindings',
    access: 'key',
    summary: "The calling key's spreadsheet bindings (never their tokens)",
    responses: { 200: ok(ZSheetBindingListSchema, 'Bindings'), 503: NOT_CONFIGURED },
  },
  bindingGet: {
    method: 'get',
    path: '/api/v1/sheets/bindings/:binding_id',
    access: 'key',
    summary: 'One binding',
    responses: { 200: ok(ZSheetBindingSchema, 'The binding'), 503: NOT_CONFIGURED },
  },
  bindingDelete: {
    method: 'delete',
    path: '/api/v1/sheets/bindings/:binding_id',
    access: 'key',
    summary: 'Unbind: the key may no longer write into the spreadsheet, from now on',
    responses: { 204: { description: 'Removed' }, 503: NOT_CONFIGURED },
  },
  scheduleCreate: {
    method: 'post',
    path: '/api/v1/sheets/schedules',
    access: 'key',
    scope: 'datasets',
    summary: 'Schedule a dataset refresh into a sheet',
    description:
      'The sheet (which must exist and be shared with the service account) is cleared and rewritten with the latest points on the cadence; the ' +
      'first run is immediate. A run missed while the connector was down runs once when it is back, not once per missed period. The ' +
      `spreadsheet must be bound to the key (${BINDING_DOC}); a run whose spreadsheet is no longer bound fails and writes nothing.`,
    request: { body: ZScheduleRequestSchema },
    responses: { 201: ok(ZScheduleSchema, 'Created'), 403: SHEET_403, 404: refused('No such dataset'), 503: NOT_CONFIGURED_OR_BUSY },
  },
  scheduleList: {
    method: 'get',
    path: '/api/v1/sheets/schedules',
    access: 'key',
    summary: "The calling key's schedules with their latest runs",
    responses: { 200: ok(ZScheduleListSchema, 'Schedules') },
  },
  scheduleGet: {
    method: 'get',
    path: '/api/v1/sheets/schedules/:schedule_id',
    access: 'key',
    summary: 'One schedule with its run history',
    responses: { 200: ok(ZScheduleSchema, 'The schedule') },
  },
  scheduleResume: {
    method: 'post',
    path: '/api/v1/sheets/schedules/:schedule_id/resume',
    access: 'key',
    scope: 'datasets',
    summary: 'Resume a schedule that paused itself after failed runs in a row',
    description: 'Clears the pause and the failure count and runs the schedule at once. Another key gets 404, as for every per-key read.',
    request: { body: ZScheduleResumeRequestSchema, bodyOptional: true },
    responses: { 200: ok(ZScheduleSchema, 'The schedule, resumed'), 503: NOT_CONFIGURED_OR_BUSY },
  },
  scheduleDelete: {
    method: 'delete',
    path: '/api/v1/sheets/schedules/:schedule_id',
    access: 'key',
    summary: 'Remove a schedule',
    responses: { 204: { description: 'Removed' } },
  },
} satisfies Record<string, RouteContract>;
