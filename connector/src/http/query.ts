/**
 * Reads a route's query string with the contract's schema for it (shared/), so the server accepts
 * exactly what the OpenAPI document says. Every refusal is 400 invalid_request naming the parameter.
 */
import type { z } from 'zod';
import { AppError } from '../errors.js';

function badQuery(err: z.ZodError): AppError {
  const issue = err.issues[0]!;
  if (issue.code === 'unrecognized_keys')
    return new AppError('invalid_request', `Unknown query parameter${issue.keys.length > 1 ? 's' : ''}: ${issue.keys.join(', ')}.`);
  const field = issue.path.join('.');
  if (issue.code === 'invalid_value' && 'values' in issue) {
    const values = issue.values.map(String);
    return new AppError(
      'invalid_request',
      `${field} must be ${values.length === 2 ? values.join(' or ') : `one of ${values.join(', ')}`}.`,
    );
  }
  // intQueryParam (shared/query.ts) words its own message; other issues get the parameter's name.
  return new AppError('invalid_request', issue.message.startsWith(field) ? issue.message : `${field}: ${issue.message}.`);
}

/** The query, typed by `schema`; a repeated parameter (?q=a&q=b, which Express gives as an array) is refused, not guessed at. */
export function parseQuery<S extends z.ZodType>(schema: S, query: Record<string, unknown>): z.output<S> {
  for (const [k, v] of Object.entries(query)) {
    if (typeof v !== 'string') throw new AppError('invalid_request', `Query parameter ${k} must be given once, as text.`);
  }
  const parsed = schema.safeParse(query);
  if (!parsed.success) throw badQuery(parsed.error);
  return parsed.data;
}
