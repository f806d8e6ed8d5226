/** A schema migration, as both backends list theirs: applied once, in id order, recorded in `schema_migrations`. */
export interface Migration {
  id: number;
  name: string;
  sql: string;
}
