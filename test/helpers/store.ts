import { openStore, type Store } from '../../daemon/store/store.js'
import { testPostgres } from './postgres.js'

/**
 * The store dialect this run tests: `PARX_TEST_STORE=postgres` (the `postgres` vitest project)
 * or SQLite, the default. Store-sensitive suites use the helpers below and so run on both.
 */
export const testDialect = (): 'sqlite' | 'postgres' =>
  process.env.PARX_TEST_STORE === 'postgres' ? 'postgres' : 'sqlite'

/** A fresh database URL on this file's PostgreSQL when testing that dialect; undefined (SQLite) otherwise. */
export async function testStoreUrl(): Promise<string | undefined> {
  return testDialect() === 'postgres' ? (await testPostgres()).createDatabase() : undefined
}

/** A fresh, migrated, empty store of the dialect under test. */
export async function openTestStore(): Promise<Store> {
  return openStore({ file: ':memory:', url: await testStoreUrl() })
}
