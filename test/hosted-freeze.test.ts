import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPlatformClient } from '../src/sdk/platform/client.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { testPostgres } from './helpers/postgres.js'
import { randomAddress } from './helpers/x402.js'

/**
 * Issue 41 item 4 across replicas: two API replicas on one PostgreSQL, each able to open the
 * agents' wallets (as hosted replicas sharing the platform wallet key). A freeze answered by A is honoured by B on the very next request, with
 * no wait and no poll: the freeze is read under the row lock that reserves the spend, and nothing
 * per process caches it. The unfreeze through B is likewise at once on A. Pay is not driven here:
 * two in-process local daemons each run their own embedded chain while sharing the store's
 * deployments, so B cannot price a seller; pay's refusal goes through the same reservation
 * (spends.reserve, channels/store.ts), covered on PostgreSQL by daemon/buyer/freeze.test.ts and
 * test/platform-freeze.test.ts. PostgreSQL only: this file runs in the `postgres` project.
 */
let a: TestDaemon
let b: TestDaemon
beforeAll(async () => {
  const url = await (await testPostgres()).createDatabase()
  a = await startTestDaemon({ flags: { store: { url } } })
  // The local profile keeps its platform key in its data dir: B opens A's wallets as a hosted replica would.
  b = await startTestDaemon({
    flags: { store: { url }, keys: { platformWalletPrevious: [a.services.keys.platformWallet!] } },
  })
}, 180_000)
afterAll(async () => {
  await Promise.all([a?.close(), b?.close()])
})

describe('freeze across replicas', () => {
  it('frozen through one replica, the other refuses the next send and swap at once; unfrozen likewise', async () => {
    const { userKey } = await createPlatformClient({
      url: a.urls.platform,
      operatorToken: a.services.keys.operatorToken,
    }).createUser({ body: { name: 'replicas' } })
    const onA = createPlatformClient({ url: a.urls.platform, userKey })
    const agent = await onA.createAgent({ body: { name: 'buyer', network: 'local-base' } })
    await onA.setLimits({ params: { id: agent.id }, body: { perPaymentUsd: '0.000001' } })
    const { agentKey } = await onA.createAgentKey({ params: { id: agent.id }, body: {} })
    const spend = (d: TestDaemon, path: string, body: unknown) =>
      d.raw(`/api/agents/${agent.id}/${path}`, {
        method: 'POST',
        headers: { 'x-agent-key': agentKey, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    const attempts = (d: TestDaemon) => [
      spend(d, 'send', { to: randomAddress(), amount: '1', token: 'PUSD' }),
      spend(d, 'swap', { from: 'USDC', to: 'PUSD', amount: '1' }),
    ]
    const codes = async (d: TestDaemon) => {
      const out: string[] = []
      for (const r of attempts(d)) out.push((await r).body.code)
      return out
    }
    // Before: B reaches the reservation and refuses on the (tiny) per-payment limit.
    expect(await codes(b)).toEqual(['LIMIT_EXCEEDED', 'LIMIT_EXCEEDED'])

    const frozen = await a.raw(`/api/agents/${agent.id}/freeze`, { method: 'POST', headers: { 'x-user-key': userKey } })
    expect(frozen.status).toBe(200)
    expect(await codes(b)).toEqual(['AGENT_FROZEN', 'AGENT_FROZEN'])
    expect((await createPlatformClient({ url: b.urls.platform, agentKey }).whoamiAgent({})).frozen).toBe(true)

    const thawed = await b.raw('/api/users/me/unfreeze', { method: 'POST', headers: { 'x-user-key': userKey } })
    expect(thawed.status).toBe(200)
    expect(await codes(a)).toEqual(['LIMIT_EXCEEDED', 'LIMIT_EXCEEDED'])
    const rows = await a.services.store.db
      .selectFrom('platform_spends')
      .select('id')
      .where('agent_id', '=', agent.id)
      .execute()
    expect(rows).toEqual([])
  })
})
