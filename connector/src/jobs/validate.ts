/** Input checks shared by the async and batch submissions: one policy, a document, a webhook URL. */
import { documentTooLarge, parsePolicyInput, type TPolicy } from '../../../shared/policy.js';
import type { TErrorCode } from '../../../shared/errors.js';
import { checkFormat } from '../verify/format-check.js';
import { normalisePolicyNumber } from '../verify/normalise.js';
import { checkWebhookUrl, type LookupAll } from '../webhooks/url-guard.js';

export type Checked<T> = { ok: true; value: T } | { ok: false; error: TErrorCode; message: string };

/** Policy fields, then the number's format for its country and type: what the sync route refuses with 400. */
export function checkPolicy(raw: unknown, allowedExtra: readonly string[] = []): Checked<TPolicy> {
  const input = parsePolicyInput(raw, { allowedExtra });
  // Spec 7: missing_required_fields (plural, with a detail) is the sync endpoint's code; everywhere
  // else a missing field is missing_required_field. The message still names every missing field.
  if (!input.ok) return { ok: false, error: input.problem.error === 'missing_required_fields' ? 'missing_required_field' : input.problem.error, message: input.problem.detail };
  const format = checkFormat(normalisePolicyNumber(input.policy.policy_number), input.policy.country, input.policy.insurance_type);
  if (!format.ok) {
    return {
      ok: false,
      error: 'invalid_policy_number',
      message: `Policy number "${input.policy.policy_number}" is not a recognised ${input.policy.country} ${input.policy.insurance_type} format: ${format.reason}.`,
    };
  }
  return { ok: true, value: input.policy };
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const PDF_MAGIC = Buffer.from('%PDF-');

/** A base64 PDF of at most 14 MB decoded. The size is judged before decoding, so a huge string costs nothing. */
export function checkDocument(raw: unknown): Checked<Buffer> {
  if (typeof raw !== 'string') return { ok: false, error: 'invalid_document', message: 'document must be a base64 string.' };
  const text = raw.replace(/\s+/g, '');
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const decodedSize = Math.floor((text.length * 3) / 4) - padding;
  if (documentTooLarge(decodedSize)) {
    return { ok: false, error: 'payload_too_large', message: `document is ${(decodedSize / 1048576).toFixed(1)} MB decoded; the limit is 14 MB.` };
  }
  if (text.length === 0 || text.length % 4 !== 0 || !BASE64.test(text)) {
    return { ok: false, error: 'invalid_document', message: 'document is not valid base64.' };
  }
  const bytes = Buffer.from(text, 'base64');
  if (!bytes.subarray(0, PDF_MAGIC.length).equals(PDF_MAGIC)) {
    return { ok: false, error: 'invalid_document', message: 'document is not a PDF (it does not start with %PDF-).' };
  }
  return { ok: true, value: bytes };
}

export async function checkWebhook(raw: unknown, opts: { allowPrivate: boolean; lookup?: LookupAll }): Promise<Checked<string | null>> {
  if (raw === undefined || raw === null) return { ok: true, value: null };
  if (typeof raw !== 'string' || raw.trim() === '') return { ok: false, error: 'invalid_webhook_url', message: 'webhook_url must be an https:// URL.' };
  const checked = await checkWebhookUrl(raw.trim(), opts);
  if (!checked.ok) return { ok: false, error: 'invalid_webhook_url', message: `webhook_url refused: ${checked.reason}.` };
  return { ok: true, value: checked.url.toString() };
}
