/** Row mappers for SQLite, which stores booleans as 0/1, JSON as text and lists as comma-separated text. */
import { rowMappers } from '../rows.js';

export type { Row } from '../rows.js';

export const { toKey, toInsurer, toPolicy, toCoverage, toJob, toBatch, toItem, toOutbox, toDataset, toWriteback, toBinding, toRequest } =
  rowMappers({
    bool: (v) => v === 1,
    json: <T>(v: unknown) => JSON.parse(String(v)) as T,
    list: (v) => String(v).split(',').filter(Boolean),
  });
