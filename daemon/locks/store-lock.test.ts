import { sql } from 'kysely'
import { afterAll, describe, expect, it } from 'vitest'
import { testStoreUrl } from '../../test/helpers/store.js'
import { openStore, type Store } from '../store/store.js'
import { storeLock } from './store-lock.js'

const opened: Store[] = []
afterAll(async () => void (await Promise.all(opened.map((s) => s.close()))))

describe('storeLock (a KeyedLock shared by every process on the store)', () => {
  it('two replicas never run sections of one key together; other keys run alongside', async () => {
    const url = await testStoreUrl()
    // On SQLite there is one process: its one lock plays both replicas.
    const stores = await Promise.all((url ? [0, 1] : [0]).map(() => openStore({ file: ':memory:', url })))
    opened.push(...stores)
    const locks = stores.map(storeLock)
    const [a, b] = [locks[0]!, locks.at(-1)!]
    let inside = 0
    let most = 0
    const section = (lock: typeof a) =>
      lock.run('local-solana:mint', async () => {
        inside++
        most = Math.max(most, inside)
        // Long enough for the other replica's attempt to arrive while this one holds the key.
        await new Promise((r) => setTimeout(r, 20))
        inside--
      })
    await Promise.all(Array.from({ length: 12 }, (_, i) => section(i % 2 ? a : b)))
    expect(most).toBe(1)
    // Another key is not held up by a held one.
    let release!: () => void
    let started!: () => void
    const holding = new Promise<void>((r) => (started = r))
    const held = a.run(
      'local-solana:mint',
      () =>
        new Promise<void>((r) => {
          release = r
          started()
        }),
    )
    await holding
    expect(await b.run('local-solana:another', async () => 'ran')).toBe('ran')
    release()
    await held
    // A failing section frees the key on every replica.
    await expect(
      a.run('k', async () => {
        throw new Error('boom')
      }),
    ).rejects.toThrow('boom')
    expect(await b.run('k', async () => 7)).toBe(7)
  })

  it('a section may use the store itself while many wait on the key (no pool exhaustion)', async () => {
    const url = await testStoreUrl()
    const s = await openStore({ file: ':memory:', url })
    opened.push(s)
    const lock = storeLock(s)
    const n = await Promise.all(
      Array.from({ length: 30 }, () =>
        lock.run('k', async () => (await s.db.selectFrom('deployments').selectAll().execute()).length),
      ),
    )
    expect(n).toEqual(Array(30).fill(0))
  })

  it('a section whose pinned connection the server ends fails, and the process lives on (PostgreSQL)', async () => {
    const url = await testStoreUrl()
    if (!url) return
    const s = await openStore({ file: ':memory:', url })
    opened.push(s)
    const lock = storeLock(s)
    let pinned = 0
    const section = lock.run('k', async () => {
      // The pinned connection is the one holding the advisory lock: end it from the server side. Of
      // this database only: the run's server holds other files' databases, and their locks.
      const held = await sql<{ pid: number }>`SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted
        AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`.execute(s.db)
      pinned = held.rows[0]!.pid
      await sql`SELECT pg_terminate_backend(${pinned})`.execute(s.db)
      await new Promise((r) => setTimeout(r, 200))
    })
    // Without a listener on checked-out connections, the server's "terminating connection" is an
    // uncaught error here, which vitest reports as a failed run.
    await section
    expect(pinned).toBeGreaterThan(0)
    expect(await lock.run('k', async () => 'again')).toBe('again')
  })
})
