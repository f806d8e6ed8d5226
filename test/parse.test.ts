/** parseOrRefuse: one wording for a body, or a part of one, that does not fit its contract schema. */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AppError } from '../connector/src/errors.js';
import { parseOrRefuse } from '../connector/src/parse.js';

const Schema = z.object({ name: z.string(), tags: z.array(z.string()) }).strict();

function refusal(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error('expected a refusal');
}

describe('parseOrRefuse', () => {
  it('returns the parsed value', () => {
    expect(parseOrRefuse(Schema, { name: 'a', tags: [] })).toEqual({ name: 'a', tags: [] });
  });

  it('names the first problem by its path; the whole body as "body"; under `at` when given', () => {
    expect(refusal(() => parseOrRefuse(Schema, { name: 'a', tags: [1] })).publicMessage).toMatch(/^tags\.0: /);
    expect(refusal(() => parseOrRefuse(Schema, 'text')).publicMessage).toMatch(/^body: /);
    const nested = refusal(() => parseOrRefuse(Schema, { name: 2, tags: [] }, 'sheet_target'));
    expect([nested.code, nested.publicMessage.startsWith('sheet_target.name: ')]).toEqual(['invalid_request', true]);
    expect(refusal(() => parseOrRefuse(Schema, null, 'sheet_target')).publicMessage).toMatch(/^sheet_target: /);
  });
});
