/** Why a backup, restore or move of the store was refused: something the operator must change before running it again. */

export type CopyRefusal =
  /** The destination exists and the command was not told to replace it. */
  | 'exists'
  /** The source names no database. */
  | 'missing'
  /** A connector (or another process) has the database open. */
  | 'in_use'
  /** The copy is damaged, not a Covercheck store, or from a newer schema. */
  | 'invalid'
  /** The PostgreSQL target already holds data. */
  | 'not_empty'
  /** The source has a table or column the copy does not know how to carry over. */
  | 'unmapped';

export class StoreCopyError extends Error {
  constructor(
    readonly refusal: CopyRefusal,
    message: string,
  ) {
    super(message);
    this.name = 'StoreCopyError';
  }
}
