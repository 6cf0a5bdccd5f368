import type { TestProject } from 'vitest/node'
import { type PostgresServer, startPostgres } from '../helpers/postgres.js'

/**
 * The run's server, shared by the two postgres projects: vitest loads a project's globalSetup in a
 * module of that project's own, so it is kept on globalThis (as test/helpers/build-dist.ts's mark).
 */
const RUN = Symbol.for('parx.test.postgresServer')
type RunServer = { server: Promise<PostgresServer>; projects: number }

/**
 * globalSetup of the `postgres` and `postgres-unit` projects (vitest runs it only when that project
 * has files to run): one embedded PostgreSQL for the whole run instead of one initdb and start per
 * file. Files reach it by port through `inject('parxPostgres')` (test/helpers/postgres.ts); each
 * store or daemon still gets its own database on it. The last project to end stops it.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const g = globalThis as { [RUN]?: RunServer }
  const run = (g[RUN] ??= { server: startPostgres(), projects: 0 })
  run.projects++
  const server = await run.server
  project.provide('parxPostgres', { port: server.port })
  return async () => {
    if (--run.projects > 0) return
    g[RUN] = undefined
    await server.destroy()
  }
}
