import type { CreateTableBuilder, Kysely } from 'kysely'

export type StoreDialect = 'sqlite' | 'postgres'

/**
 * One migration, for both dialects. It receives the dialect only for the few types that differ
 * (use the helpers below); everything else is written once with Kysely's schema builder.
 * Pending migrations run in one transaction: an interrupted start reruns them whole.
 */
export type StoreMigration = {
  // biome-ignore lint/suspicious/noExplicitAny: a migration meets the schema of its day, not today's tables
  up(db: Kysely<any>, dialect: StoreDialect): Promise<void>
}

/** An autoincrement integer primary key named `id` (SQLite's rowid alias; a bigserial on PostgreSQL). */
export function withAutoId<T extends string>(
  t: CreateTableBuilder<T, never>,
  dialect: StoreDialect,
): CreateTableBuilder<T, 'id'> {
  return dialect === 'sqlite'
    ? t.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    : t.addColumn('id', 'bigserial', (c) => c.primaryKey())
}
