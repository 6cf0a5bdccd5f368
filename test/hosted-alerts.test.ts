import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BaseError } from '../src/errors/index.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { testPostgres } from './helpers/postgres.js'

/**
 * Issue 41 item 5 on the role split's store: two api replicas on one PostgreSQL, each evaluating
 * the alert rules around the spends and refusals it serves, race one user's agents; every crossing
 * is stored once (the unique key in the store, not either replica's memory). Spends are reserved
 * through each replica's own ledger and pool, watched by its own alerts service, as its pay route
 * does (two in-process local daemons cannot both price one seller: see hosted-limits.test.ts).
 * PostgreSQL only: this file runs in the `postgres` project.
 */
let a: TestDaemon
let b: TestDaemon
beforeAll(async () => {
  const url = await (await testPostgres()).createDatabase()
  a = await startTestDaemon({ flags: { store: { url } } })
  b = await startTestDaemon({ flags: { store: { url } } })
}, 180_000)
afterAll(async () => void (await Promise.all([a?.close(), b?.close()])))

describe('alerts across two replicas', () => {
  it('a budget crossed by concurrent spends through both replicas fires once; 3 refusals in 10 minutes, raced, fire once', async () => {
    // Rounds, each a fresh user: a race lost only once in a while still shows.
    for (let round = 0; round < 5; round++) await race()
  })
})

async function race() {
  const platform = a.services.platform
  const { user } = await platform.store.createUser({ name: 'alerts' })
  const agents = await Promise.all(
    ['one', 'two'].map((name) => platform.store.createAgent({ userId: user.id, name, network: 'local-base' })),
  )
  await platform.store.setUserLimits(user.id, { monthlyUsd: '2' })
  const budget = await platform.alerts.add(user.id, { kind: 'budget', percent: 50, window: 'month', of: 'user' })
  const refusals = await platform.alerts.add(user.id, { kind: 'refusals', count: 3, withinMinutes: 10 })
  const replica = (i: number) => (i % 2 ? a : b).services.platform
  const spend = (i: number) => {
    const p = replica(i)
    const agent = agents[i % 2]!
    return p.alerts.watch(agent, () =>
      p.spends.reserve({
        agentId: agent.id,
        kind: 'pay',
        amountMicros: 100_000n,
        token: 'USDC',
        amount: '0.1',
        host: 'seller.test',
      }),
    )
  }
  const refuse = (i: number) =>
    replica(i)
      .alerts.watch(agents[0]!, async () => {
        throw new BaseError('AGENT_FROZEN', 'frozen')
      })
      .catch(() => undefined)
  await Promise.all([
    ...Array.from({ length: 16 }, (_, i) => spend(i)),
    ...Array.from({ length: 8 }, (_, i) => refuse(i)),
  ])
  const fired = await b.services.platform.alerts.store.history(user.id, { limit: 100 })
  // 1.6 of 2 USD spent: the 50% line (1 USD) was crossed once, by exactly one of the sixteen spends.
  expect(fired.filter((x) => x.rule_id === budget.id)).toHaveLength(1)
  // Eight refusals within the minute: the count reached 3 once.
  expect(fired.filter((x) => x.rule_id === refusals.id)).toHaveLength(1)
  expect(JSON.parse(fired.find((x) => x.rule_id === budget.id)!.figures)).toMatchObject({ of: 'user', spentUsd: '1' })
}
