/** Watches: policies re-verified on a cadence, reporting what changed (docs/monitoring.md). */
import { ZWatchActionRequestSchema, ZWatchListSchema, ZWatchRequestSchema, ZWatchSchema, MAX_WATCH_POLICIES } from '../watches.js';
import { MAX_POLICY_NUMBER_LENGTH, MAX_PROVIDER_LENGTH } from '../policy.js';
import { ok, refused, SHEET_403, type RouteContract } from './types.js';

/**
 * The largest policy as JSON: its longest number and provider, country and type words, an end date and
 * the names and punctuation, with room (a policy is far smaller in practice, ~100 bytes).
 */
const MAX_POLICY_JSON_BYTES = MAX_POLICY_NUMBER_LENGTH + MAX_PROVIDER_LENGTH + 256;
/** A full watch of the largest policies, and the envelope (the report, a sheet target). */
export const WATCH_BODY_LIMIT = MAX_WATCH_POLICIES * MAX_POLICY_JSON_BYTES + 64 * 1024;
/** Array elements and members of a full watch: a policy has at most 6 fields, and the envelope a few dozen. */
export const WATCH_JSON_VALUES = MAX_WATCH_POLICIES * 7 + 1_000;

const MONITORING_DOC = 'docs/monitoring.md';

export const watchRoutes = {
  watchCreate: {
    method: 'post',
    path: '/api/v1/watches',
    access: 'key',
    scope: 'verify',
    summary: `Watch up to ${MAX_WATCH_POLICIES.toLocaleString('en')} policies: re-verified on a cadence, reporting what changed`,
    description:
      'Each policy is checked as a batch item; the first that fails refuses the watch (400, naming it). The first run starts at once and ' +
      'records where each policy stands; later runs report changes: status changed, newly expired, entering the expiry window, cancelled, ' +
      'insurer no longer authorised, insurer sanctioned. Each run is charged like a batch (1 credit per verified or unverified result, 0 ' +
      'for inconclusive, nothing on a sandbox key); a run that exhausts the balance stops there. An import that changes an insurer makes ' +
      `its watched policies due for a re-check at once. See ${MONITORING_DOC}.`,
    request: { body: ZWatchRequestSchema },
    bodyLimit: WATCH_BODY_LIMIT,
    jsonValues: WATCH_JSON_VALUES,
    // No `webhook` flag: its callback expression names a top-level webhook_url; a watch's is report.webhook_url (docs/webhooks.md).
    responses: {
      201: ok(ZWatchSchema, 'Created; the first run is due at once'),
      400: refused(
        'invalid_request (the envelope; report.email without an address on the key), missing_required_field, unsupported_country, unsupported_insurance_type, invalid_policy_number (policies[i]), invalid_webhook_url, invalid_json',
      ),
      403: SHEET_403,
    },
  },
  watchList: {
    method: 'get',
    path: '/api/v1/watches',
    access: 'key',
    summary: "The calling key's watches, with their last run",
    responses: { 200: ok(ZWatchListSchema, 'Watches') },
  },
  watchGet: {
    method: 'get',
    path: '/api/v1/watches/:watch_id',
    access: 'key',
    summary: 'One watch: next run, last run and its first changes, projected monthly credits',
    description: 'Visible only to the key that created it; any other key gets 404.',
    responses: { 200: ok(ZWatchSchema, 'The watch') },
  },
  watchPause: {
    method: 'post',
    path: '/api/v1/watches/:watch_id/pause',
    access: 'key',
    scope: 'verify',
    summary: 'Pause a watch: no run starts, and a run under way stops after its current chunk',
    request: { body: ZWatchActionRequestSchema, bodyOptional: true },
    responses: { 200: ok(ZWatchSchema, 'The watch, paused') },
  },
  watchResume: {
    method: 'post',
    path: '/api/v1/watches/:watch_id/resume',
    access: 'key',
    scope: 'verify',
    summary: 'Resume a paused watch: a run missed while paused starts at once, once',
    request: { body: ZWatchActionRequestSchema, bodyOptional: true },
    responses: { 200: ok(ZWatchSchema, 'The watch, active') },
  },
  watchDelete: {
    method: 'delete',
    path: '/api/v1/watches/:watch_id',
    access: 'key',
    scope: 'verify',
    summary: 'Delete a watch with its policies, runs and changes',
    description: 'Any run under way stops; its changes are not reported. Another key gets 404.',
    responses: { 204: { description: 'Deleted' } },
  },
} satisfies Record<string, RouteContract>;
