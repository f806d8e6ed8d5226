/** Structured logs (pino): one JSON line each, `time` in ISO 8601 (UTC). Authorization headers and anything key-shaped are redacted. */
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
  return pino(
    {
      level,
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      base: { service: 'covercheck-connector' },
    },
    destination,
  );
}
