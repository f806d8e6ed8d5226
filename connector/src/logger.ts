/** Structured logs (pino). Authorization headers and anything key-shaped are redacted. */
import { pino, type Logger } from 'pino';

export type { Logger } from 'pino';

export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["idempotency-key"]',
  'res.headers["set-cookie"]',
  'key',
  '*.key',
];

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino({ level, redact: { paths: REDACT_PATHS, censor: '[redacted]' }, base: { service: 'covercheck-connector' } }, destination);
}
