import pg from 'pg'
import { describe, expect, inject, it } from 'vitest'
import { stopTestPostgres, testPostgres } from './postgres.js'

// The postgres project only (vitest.config.ts): files share the run's server, each with databases of its own.
const names = async (port: number): Promise<string[]> => {
  const c = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password: 'parx-test', database: 'postgres' })
  await c.connect()
  try {
    return (await c.query<{ datname: string }>('SELECT datname FROM pg_database')).rows.map((r) => r.datname)
  } finally {
    await c.end()
  }
}

describe("the run's one PostgreSQL", () => {
  it('is the server globalSetup started, not one of this file; its databases are fresh and dropped when the file ends', async () => {
    const run = inject('parxPostgres')
    expect(run?.port).toEqual(expect.any(Number))
    const server = await testPostgres()
    expect(server.port).toBe(run!.port)
    const [a, b] = [await server.createDatabase(), await server.createDatabase()]
    expect(a).not.toBe(b)
    const created = [a, b].map((u) => new URL(u).pathname.slice(1))
    expect(await names(server.port)).toEqual(expect.arrayContaining(created))
    // Another file may be using it: stopping it from here is refused.
    await expect(server.stop()).rejects.toThrow(/not this file's to stop/)
    await stopTestPostgres()
    const left = await names(run!.port)
    expect(created.filter((n) => left.includes(n))).toEqual([])
  })
})
