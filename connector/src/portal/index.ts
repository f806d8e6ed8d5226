/** The key portal: HTML pages at /portal, activation mails, and the sweep of unused free keys. */
export { createPortal } from './app.js';
export { createMailer, type Mail, type Mailer } from './mailer.js';
export { activateKey, checkActivationLink, issueKeyByName, requestKeyByEmail, type IssuedKey } from './request-key.js';
export { KeySweeper, sweepUnusedKeys, UNUSED_KEY_TTL_MS } from './sweep.js';
export { CsrfGuard } from './csrf.js';
export { ACTIVATION_TTL_MS, hashToken, newActivationToken } from './tokens.js';
