/** Webhook delivery: URL checks against SSRF, one signed delivery attempt, and the retry schedule. */
export {
  addressClass,
  checkWebhookUrl,
  isPrivateAddress,
  resolveWebhookTarget,
  type LookupAll,
  type ResolvedTarget,
  type UrlGuardOptions,
} from './url-guard.js';
export { deliverWebhook, type DeliverOptions, type DeliveryAttempt, type DeliveryRequest } from './deliver.js';
export { MAX_ATTEMPTS, RETRY_DELAYS_S, nextRetryDelayMs, type BackoffOptions } from './backoff.js';
