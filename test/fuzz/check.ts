/** What every response of the fuzz must be, whatever was sent: the contract's answer, never a server failure. */
import { ERROR_STATUS, ZErrorBodySchema, ZSyncErrorBodySchema } from '../../shared/errors.js';
import type { RawOutcome, RawRequest } from '../helpers/raw-http.js';

/** The path as Express matches it: absolute-form's origin and the query dropped, case and a trailing slash ignored. */
export function routedPath(target: string): string {
  const p = target
    .replace(/^https?:\/\/[^/]*/i, '')
    .replace(/\?.*$/s, '')
    .toLowerCase();
  return p.length > 1 ? p.replace(/\/$/, '') : p;
}

/**
 * Null when the outcome is acceptable, else what is wrong with it:
 * - an answer at all (unless the client lied about its body or left);
 * - no 5xx, except 503 with Retry-After and retry_after (back-pressure, as the contract has it);
 * - every error in the contract's body, its code's status the response's status; the portal's
 *   pages are HTML, the rest JSON; POST /api/v1/verify may use the sync form (spec 4.1).
 */
export function problemWith(req: RawRequest, outcome: RawOutcome, mayGoUnanswered: boolean): string | null {
  if (!outcome.ok) return mayGoUnanswered ? null : `no answer: ${outcome.reason}`;
  const res = outcome.response;
  if (res.status === 0) return null; // the client left, as the case asked
  if (res.status >= 500 && !(res.status === 503 && res.headers['retry-after'])) return `answered ${res.status}: ${res.text.slice(0, 300)}`;
  if (res.status < 400 || req.method === 'HEAD') return null;
  const type = res.headers['content-type'] ?? '';
  const routed = routedPath(req.path);
  const portal = routed === '/portal' || routed.startsWith('/portal/');
  if (type.startsWith('text/html')) return portal ? null : `an HTML error page outside the portal (${res.status})`;
  if (!type.startsWith('application/json'))
    return `a ${res.status} with Content-Type "${type}", not the contract's JSON error body: ${JSON.stringify(res.text.slice(0, 200))}`;
  let body: unknown;
  try {
    body = JSON.parse(res.text);
  } catch {
    return `a ${res.status} whose body is not JSON: ${JSON.stringify(res.text.slice(0, 200))}`;
  }
  const standard = ZErrorBodySchema.safeParse(body);
  if (standard.success) {
    if (standard.data.code !== res.status || ERROR_STATUS[standard.data.error] !== res.status)
      return `error body ${res.text} on a ${res.status}`;
    if (res.status === 503 && standard.data.retry_after === undefined) return `a 503 without retry_after: ${res.text}`;
    if (res.status === 429 && (standard.data.retry_after === undefined || !res.headers['retry-after']))
      return `a 429 without Retry-After and retry_after: ${res.text}`;
    return null;
  }
  const sync = routed === '/api/v1/verify' && req.method === 'POST' ? ZSyncErrorBodySchema.safeParse(body) : null;
  if (sync?.success && ERROR_STATUS[sync.data.error] === res.status) return null;
  return `a ${res.status} whose body is not the contract's error body (${standard.error.issues[0]?.message}): ${res.text.slice(0, 300)}`;
}
