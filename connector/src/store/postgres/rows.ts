/** Row mappers for PostgreSQL, where pg has already decoded booleans, jsonb and text[]. */
import { rowMappers } from '../rows.js';

export { str } from '../rows.js';

export const {
  toKey,
  toInsurer,
  toPolicy,
  toCoverage,
  toJob,
  toBatch,
  toItem,
  toOutbox,
  toDataset,
  toWriteback,
  toSchedule,
  toBinding,
  toRequest,
} = rowMappers({
  bool: (v) => v === true,
  json: <T>(v: unknown) => v as T,
  list: (v) => v as string[],
});
