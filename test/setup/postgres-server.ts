import type { TestProject } from 'vitest/node'
import { startPostgres } from '../helpers/postgres.js'

/**
 * globalSetup of the `postgres` project (vitest runs it only when that project has files to run):
 * one embedded PostgreSQL for the whole run instead of one initdb and start per file. Files reach
 * it by port through `inject('parxPostgres')` (test/helpers/postgres.ts); each store or daemon still
 * gets its own database on it.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startPostgres()
  project.provide('parxPostgres', { port: server.port })
  return () => server.destroy()
}
