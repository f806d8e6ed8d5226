/**
 * The contract shared by the connector and the add-on: one zod schema per body, types inferred.
 * `webhooks.ts` (signing, node:crypto) is imported directly by those who need it, so the
 * add-on's Apps Script bundle never pulls in Node modules.
 */
export * from './policy.js';
export * from './verification.js';
export * from './errors.js';
export * from './job.js';
export * from './batch.js';
export * from './dataset.js';
export * from './account.js';
export * from './deliveries.js';
export * from './sheets.js';
