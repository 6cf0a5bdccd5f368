import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { testPostgres } from '../../test/helpers/postgres.js'
import { type Duties, type Leadership, postgresLeadership, soleLeadership, WORKER_LOCK_KEY } from './leader.js'

// Runs in the `postgres` vitest project only (it needs PostgreSQL's advisory locks).
const running: Leadership[] = []
afterEach(async () => void (await Promise.all(running.splice(0).map((l) => l.stop()))))

/** Duties that count how many leaders run them at once. */
function counter() {
  const c = { active: 0, maxActive: 0, starts: 0 }
  const duties: Duties = async () => {
    c.active++
    c.starts++
    c.maxActive = Math.max(c.maxActive, c.active)
    return async () => void c.active--
  }
  return { c, duties }
}

async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400 && !cond(); i++) await new Promise((r) => setTimeout(r, 25))
  if (!cond()) throw new Error(`never happened: ${what}`)
}

const campaign = (url: string, duties: Duties) => {
  const l = postgresLeadership({ url, duties, pollMs: 50 })
  running.push(l)
  return l
}

describe('worker leadership (PostgreSQL advisory lock)', () => {
  it('one of several campaigners leads; when it stops, a standby takes over', async () => {
    const url = await (await testPostgres()).createDatabase()
    const { c, duties } = counter()
    const a = campaign(url, duties)
    await until(() => a.isLeader(), 'a leads')
    const b = campaign(url, duties)
    const d = campaign(url, duties)
    // Give the standbys many rounds at the lock.
    for (let i = 0; i < 10; i++) await new Promise((r) => setTimeout(r, 50))
    expect([a, b, d].filter((l) => l.isLeader())).toHaveLength(1)
    await a.stop()
    await until(() => b.isLeader() || d.isLeader(), 'a standby leads')
    expect([b, d].filter((l) => l.isLeader())).toHaveLength(1)
    expect(c.maxActive).toBe(1)
    expect(c.starts).toBe(2)
  })

  it('a leader whose connection dies (as with kill -9) stops its duties and a standby takes over', async () => {
    const url = await (await testPostgres()).createDatabase()
    const { c, duties } = counter()
    const a = campaign(url, duties)
    await until(() => a.isLeader(), 'a leads')
    const b = campaign(url, duties)
    // Kill the backend holding the lock, as a dead leader's connection would end.
    const admin = new pg.Client({ connectionString: url })
    await admin.connect()
    try {
      const held = await admin.query(
        // Of this database only: the run's server holds other files' databases, their workers' locks too.
        `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND ((classid::bigint << 32) | objid::bigint) = $1
          AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
        [WORKER_LOCK_KEY.toString()],
      )
      expect(held.rows).toHaveLength(1)
      await admin.query('SELECT pg_terminate_backend($1)', [held.rows[0].pid])
    } finally {
      await admin.end()
    }
    // Not `a.isLeader() || b.isLeader()`: right after the kill, `a` may not have heard yet and
    // still says it leads (this is what made the test fail once). The handover is the second start.
    await until(() => c.starts === 2 && c.active === 1, 'the duties start again, once')
    expect([a, b].filter((l) => l.isLeader())).toHaveLength(1)
    expect(c.maxActive).toBe(1)
    expect(c.starts).toBe(2)
  })

  it('on SQLite the single process leads at once', async () => {
    const { c, duties } = counter()
    const l = soleLeadership(duties)
    running.push(l)
    expect(l.isLeader()).toBe(true)
    await until(() => c.active === 1, 'duties run')
  })
})
