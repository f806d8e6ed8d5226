/** A value against one of the contract's schemas: the parsed value, or AppError invalid_request naming the first problem and where it is. */
import type { z } from 'zod';
import { echoed } from '../../shared/errors.js';
import { AppError } from './errors.js';

/** `at`: where the value sits in the request ("sheet_target"), prefixed to the problem's path; the whole body when absent. */
export function parseOrRefuse<S extends z.ZodType>(schema: S, value: unknown, at?: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  // A path segment can be a received key (a record's): quoted in part, like any received value.
  const where = [at, ...issue.path.map((p) => echoed(String(p)))].filter((p) => p !== undefined && p !== '').join('.');
  throw new AppError('invalid_request', `${where || 'body'}: ${issue.message}`);
}
