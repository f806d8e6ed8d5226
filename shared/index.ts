/** The contract shared by the connector and the add-on: one zod schema per body, types inferred. */
export * from './policy.js';
export * from './verification.js';
export * from './errors.js';
export * from './job.js';
export * from './batch.js';
export * from './dataset.js';
export * from './account.js';
