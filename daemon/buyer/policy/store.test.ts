import { randomUUID } from 'node:crypto'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openTestStore } from '../../../test/helpers/store.js'
import type { AgentRow } from '../../platform/store.js'
import type { Store } from '../../store/store.js'
import { type PolicyStore, policyStore } from './store.js'

/**
 * The rules as stored (migration 640_payee_rules), on SQLite and PostgreSQL (storeSensitive):
 * patches, `clear`, the agent's allowHosts kept in its allowed_hosts column, one query for both
 * scopes, and the default copied into a new agent.
 */
let store: Store
let policies: PolicyStore
let userId: string
let otherUser: string
const agent = async (id = randomUUID(), user = userId): Promise<AgentRow> => {
  await store.db
    .insertInto('platform_agents')
    .values({
      id,
      user_id: user,
      name: 'a',
      network: 'local-base',
      address: `0x${randomUUID().replace(/-/g, '').padEnd(40, '0')}`,
      wallet_sealed: 'x',
      per_payment_usd: null,
      daily_usd: null,
      allowed_hosts: null,
      created_at: Date.now(),
    })
    .execute()
  return (await store.db.selectFrom('platform_agents').selectAll().where('id', '=', id).executeTakeFirst())!
}
const reread = async (a: AgentRow) =>
  (await store.db.selectFrom('platform_agents').selectAll().where('id', '=', a.id).executeTakeFirst())!

beforeEach(async () => {
  store = await openTestStore()
  policies = policyStore(store)
  userId = randomUUID()
  otherUser = randomUUID()
  for (const id of [userId, otherUser])
    await store.db
      .insertInto('platform_users')
      .values({ id, wallet: null, name: 'u', created_at: Date.now() })
      .execute()
})
afterEach(async () => store?.close())

describe('policy store', () => {
  it("patches lists (left out: kept; null: cleared; clear: all first); allowHosts is the agent's allowed_hosts", async () => {
    const a = await agent()
    await policies.setAgentRules(a, {
      allowHosts: ['a.test'],
      denyPayTo: ['0x00000000000000000000000000000000000000aa'],
    })
    expect((await reread(a)).allowed_hosts).toBe('["a.test"]')
    const r = await policies.setAgentRules(await reread(a), { denyTokens: ['PUSD'], denyPayTo: null })
    expect(r).toMatchObject({ allowHosts: ['a.test'], denyPayTo: null, denyTokens: ['PUSD'] })
    expect(await policies.agentRules(await reread(a))).toEqual(r)
    const cleared = await policies.setAgentRules(await reread(a), { clear: true, allowNetworks: [] })
    expect(cleared).toMatchObject({ allowHosts: null, denyTokens: null, allowNetworks: [] })
    expect((await reread(a)).allowed_hosts).toBeNull()
  })

  it("scoped reads the agent's rules and its own user's only", async () => {
    const a = await agent()
    const b = await agent(randomUUID(), otherUser)
    await policies.setUserRules(userId, { denyHosts: ['bad.test'] })
    await policies.setUserRules(otherUser, { denyHosts: ['other.test'] })
    await policies.setAgentRules(b, { denyTokens: ['USDC'] })
    const s = await policies.scoped(a)
    expect(s.user.denyHosts).toEqual(['bad.test'])
    expect(s.agent.denyTokens).toBeNull()
    expect((await policies.scoped(b)).agent.denyTokens).toEqual(['USDC'])
  })

  it('the default policy is kept apart from the user rules and copied into an agent', async () => {
    const d = await policies.setDefaultPolicy(userId, {
      allowTokens: ['USDC'],
      allowHosts: ['*.x.test'],
      perPaymentUsd: '1',
    })
    expect(d).toMatchObject({ perPaymentUsd: '1', dailyUsd: null, rules: { allowTokens: ['USDC'] } })
    expect((await policies.userRules(userId)).allowTokens).toBeNull()
    const a = await agent()
    await policies.copyDefault(a.id, d)
    expect(await policies.agentRules(await reread(a))).toMatchObject({
      allowTokens: ['USDC'],
      allowHosts: ['*.x.test'],
    })
    expect(await policies.setDefaultPolicy(userId, { dailyUsd: '3' })).toMatchObject({
      perPaymentUsd: '1',
      dailyUsd: '3',
    })
    expect(await policies.setDefaultPolicy(userId, { clear: true })).toMatchObject({
      perPaymentUsd: null,
      dailyUsd: null,
      rules: { allowTokens: null },
    })
  })
})
