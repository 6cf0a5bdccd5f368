// biome-ignore-all lint/suspicious/noExplicitAny: migrations run against every past schema, not today's tables
import { type Kysely, type Migration, type MigrationProvider, Migrator } from 'kysely'
import { migrations as allMigrations } from './migrations/index.js'
import type { StoreDialect, StoreMigration } from './migrations/migration.js'

/** Where applied migrations are recorded (Kysely's Migrator table layout: name, timestamp). */
export const MIGRATION_TABLE = 'parx_migrations'
const LOCK_TABLE = 'parx_migrations_lock'
/** The table releases up to 0.1 recorded their .sql migrations in. */
const LEGACY_TABLE = 'schema_migrations'

/**
 * Applies pending migrations and returns their names. Kysely's Migrator runs them in one
 * transaction (both dialects have transactional DDL) under a lock (an advisory lock on
 * PostgreSQL), so replicas starting together apply each migration once, and a start interrupted
 * half way leaves nothing applied and reruns it. Migrations from an area may land after a higher
 * number is applied, so unordered ones are allowed.
 */
export async function migrate(
  db: Kysely<any>,
  dialect: StoreDialect,
  migrations: Record<string, StoreMigration> = allMigrations,
): Promise<string[]> {
  // Most starts have nothing to apply: one read of the record says so, without the Migrator's lock
  // and its table checks (each reads every table's columns).
  if (await allRecorded(db, Object.keys(migrations))) return []
  await adoptLegacyRecord(db, Object.keys(migrations))
  const provider: MigrationProvider = {
    getMigrations: async () =>
      Object.fromEntries(
        Object.entries(migrations).map(([name, m]): [string, Migration] => [name, { up: (tx) => m.up(tx, dialect) }]),
      ),
  }
  const migrator = new Migrator({
    db,
    provider,
    migrationTableName: MIGRATION_TABLE,
    migrationLockTableName: LOCK_TABLE,
    allowUnorderedMigrations: true,
    // Kysely's default, localeCompare, builds an ICU collator on first use (about 0.1 s of a start);
    // our names are lower-case ASCII with a number first, ordered the same code unit by code unit.
    nameComparator: (a, b) => (a < b ? -1 : a > b ? 1 : 0),
  })
  const { error, results } = await migrator.migrateToLatest()
  if (error) throw error
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName)
}

/** Every migration is recorded as applied (false when the record does not exist yet). */
async function allRecorded(db: Kysely<any>, names: string[]): Promise<boolean> {
  let rows: { name: string }[]
  try {
    rows = await db.selectFrom(MIGRATION_TABLE).select('name').execute()
  } catch {
    return false
  }
  const recorded = new Set(rows.map((r) => r.name))
  return names.every((n) => recorded.has(n))
}

/**
 * A data dir made by a release before the async store recorded `001_partner_keys.sql` etc. in
 * `schema_migrations`: those tables exist, so their names are copied (without `.sql`) into the
 * migration table once, and only the migrations it never had run. The legacy table is kept.
 */
async function adoptLegacyRecord(db: Kysely<any>, known: string[]): Promise<void> {
  const tables = new Set((await db.introspection.getTables({ withInternalKyselyTables: true })).map((t) => t.name))
  if (!tables.has(LEGACY_TABLE) || tables.has(MIGRATION_TABLE)) return
  await db.transaction().execute(async (tx) => {
    const rows = await tx.selectFrom(LEGACY_TABLE).select(['name', 'applied_at']).execute()
    await tx.schema
      .createTable(MIGRATION_TABLE)
      .ifNotExists()
      .addColumn('name', 'varchar(255)', (c) => c.notNull().primaryKey())
      .addColumn('timestamp', 'varchar(255)', (c) => c.notNull())
      .execute()
    for (const r of rows as { name: string; applied_at: number }[]) {
      const name = r.name.replace(/\.sql$/, '')
      if (!known.includes(name)) continue
      await tx
        .insertInto(MIGRATION_TABLE)
        .values({ name, timestamp: new Date(Number(r.applied_at)).toISOString() })
        .execute()
    }
  })
}
