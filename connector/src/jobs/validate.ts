/**
 * Input checks shared by the async and batch submissions: one policy, a document, a webhook URL.
 * Each returns the checked value or throws AppError.
 */
import { documentTooLarge, parsePolicyInput, type TPolicy } from '../../../shared/policy.js';
import { AppError } from '../errors.js';
import { requireFormat } from '../verify/format-check.js';
import { checkWebhookUrl, type LookupAll } from '../webhooks/url-guard.js';

/** Policy fields, then the number's format for its country and type: what the sync route refuses with 400. */
export function checkPolicy(raw: unknown, allowedExtra: readonly string[] = []): TPolicy {
  const input = parsePolicyInput(raw, { allowedExtra });
  // Spec 7: missing_required_fields (plural, with a detail) is the sync endpoint's code; everywhere
  // else a missing field is missing_required_field. The message still names every missing field.
  if (!input.ok)
    throw new AppError(
      input.problem.error === 'missing_required_fields' ? 'missing_required_field' : input.problem.error,
      input.problem.detail,
    );
  requireFormat(input.policy);
  return input.policy;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const PDF_MAGIC = Buffer.from('%PDF-');

/** The one PDF check for both ways a document arrives; `what` names it in the refusal ("document", "The uploaded file"). */
export function requirePdf(bytes: Buffer, what: string): Buffer {
  if (!bytes.subarray(0, PDF_MAGIC.length).equals(PDF_MAGIC))
    throw new AppError('invalid_document', `${what} is not a PDF (it does not start with %PDF-).`);
  return bytes;
}

/** A JPEG (FF D8 FF) or a PNG (its 8-byte signature): an extraction upload may be a photo of the document. */
const IMAGE_MAGIC = [Buffer.from('ffd8ff', 'hex'), Buffer.from('89504e470d0a1a0a', 'hex')];

/**
 * The check of an extraction upload: a PDF, or a JPEG or PNG read as a one-page scan (an extension of spec
 * 4.4, docs/api-decisions.md). The kind is told by the first bytes, never by the file's name or stated type.
 */
export function requirePdfOrImage(bytes: Buffer, what: string): Buffer {
  if (IMAGE_MAGIC.some((m) => bytes.subarray(0, m.length).equals(m))) return bytes;
  if (!bytes.subarray(0, PDF_MAGIC.length).equals(PDF_MAGIC))
    throw new AppError('invalid_document', `${what} is not a PDF, JPEG or PNG (it starts with none of their signatures).`);
  return bytes;
}

/** A base64 PDF of at most 14 MB decoded. The size is judged before decoding, so a huge string costs nothing. */
export function checkDocument(raw: unknown): Buffer {
  if (typeof raw !== 'string') throw new AppError('invalid_document', 'document must be a base64 string.');
  const text = raw.replace(/\s+/g, '');
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const decodedSize = Math.floor((text.length * 3) / 4) - padding;
  if (documentTooLarge(decodedSize))
    throw new AppError('payload_too_large', `document is ${(decodedSize / 1048576).toFixed(1)} MB decoded; the limit is 14 MB.`);
  if (text.length === 0 || text.length % 4 !== 0 || !BASE64.test(text))
    throw new AppError('invalid_document', 'document is not valid base64.');
  return requirePdf(Buffer.from(text, 'base64'), 'document');
}

/** An optional webhook URL: null when absent, else the URL as it will be called. */
/** The longest webhook_url accepted: browsers and proxies commonly take about 2,000; a multipart field holds 4,096 bytes. */
export const MAX_WEBHOOK_URL_CHARS = 2048;

export async function checkWebhook(raw: unknown, opts: { allowPrivate: boolean; lookup?: LookupAll }): Promise<string | null> {
  if (raw === undefined || raw === null) return null;
  if (typeof raw !== 'string' || raw.trim() === '') throw new AppError('invalid_webhook_url', 'webhook_url must be an https:// URL.');
  // Before anything parses it: a URL of megabytes would be stored with the job and its outbox rows, returned
  // by every read, and re-encoded at each delivery attempt.
  if (raw.length > MAX_WEBHOOK_URL_CHARS)
    throw new AppError('invalid_webhook_url', `webhook_url is longer than ${MAX_WEBHOOK_URL_CHARS.toLocaleString('en')} characters.`);
  const checked = await checkWebhookUrl(raw.trim(), opts);
  if (!checked.ok) throw new AppError('invalid_webhook_url', `webhook_url refused: ${checked.reason}.`);
  return checked.url.toString();
}
