import { createServer, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { newAgentLimits } from '../daemon/buyer/quotas.js'
import { createPlatformClient } from '../src/sdk/platform/client.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { dashboardClient } from './helpers/dashboard.js'

/**
 * Issue 25 item 6: per-user quotas refuse the N+1th agent, endpoint, webhook, agent key, user key
 * and partner key, and a pay call beyond those in flight, with QUOTA_EXCEEDED (403, `quota`,
 * `limit`, `used`); new agents start with the deployment's default limits.
 */
let d: TestDaemon
let seller: Server
const hanging: ServerResponse[] = []
beforeAll(async () => {
  d = await startTestDaemon({
    flags: {
      quotas: {
        agentsPerUser: 2,
        endpointsPerUser: 2,
        webhooksPerUser: 1,
        agentKeysPerAgent: 2,
        userKeysPerUser: 1,
        partnerKeysPerWallet: 1,
        concurrentPaysPerUser: 1,
        newAgentPerPaymentUsd: '0.5',
      },
    },
  })
  // A seller that takes the request and never answers: a pay call stays in flight until we end it.
  seller = createServer((req, res) => {
    req.resume()
    hanging.push(res)
  })
  await new Promise<void>((r) => seller.listen(0, '127.0.0.1', r))
}, 180_000)
afterAll(async () => {
  for (const res of hanging) res.destroy()
  seller?.closeAllConnections()
  await new Promise((r) => seller?.close(r))
  await d?.close()
})

const json = (headers: Record<string, string>, body?: unknown, method = body === undefined ? 'GET' : 'POST') => ({
  method,
  headers: { ...headers, 'content-type': 'application/json' },
  body: body === undefined ? undefined : JSON.stringify(body),
})
const newUser = async () => {
  const { userKey } = await createPlatformClient({
    url: d.urls.platform,
    operatorToken: d.services.keys.operatorToken,
  }).createUser({ body: {} })
  return { userKey, h: { 'x-user-key': userKey }, client: createPlatformClient({ url: d.urls.platform, userKey }) }
}
const refused = (r: { status: number; body: any }, quota: string, limit: number) => {
  expect(r.status, JSON.stringify(r.body)).toBe(403)
  expect(r.body).toMatchObject({ code: 'QUOTA_EXCEEDED', quota, limit, used: limit })
  expect(r.body.error).toMatch(new RegExp(`quotas\\.\\w+ = ${limit}`))
}

describe('per-user quotas', () => {
  it('refuses the third agent and the third live key of an agent; a revoked key frees its slot', async () => {
    const { h, client } = await newUser()
    const a = await client.createAgent({ body: { name: 'one', network: 'local-base' } })
    await client.createAgent({ body: { name: 'two', network: 'local-base' } })
    refused(await d.raw('/api/agents', json(h, { name: 'three', network: 'local-base' })), 'agents', 2)
    // Another user is not affected.
    await (await newUser()).client.createAgent({ body: { name: 'theirs', network: 'local-base' } })

    const k1 = await client.createAgentKey({ params: { id: a.id }, body: {} })
    await client.createAgentKey({ params: { id: a.id }, body: {} })
    refused(await d.raw(`/api/agents/${a.id}/keys`, json(h, {})), 'agentKeys', 2)
    await client.revokeAgentKey({ params: { id: a.id, keyId: k1.key.id } })
    await client.createAgentKey({ params: { id: a.id }, body: {} })
  })

  it('refuses the third endpoint and a second webhook, on create and on update; a deleted endpoint frees its slot', async () => {
    const { h, client } = await newUser()
    const body = {
      upstreamUrl: 'http://127.0.0.1:9/data',
      price: '0.01',
      network: 'local-base',
      token: 'PUSD',
      payTo: '0x000000000000000000000000000000000000dEaD',
    }
    await client.createEndpoint({ body: { ...body, webhookUrl: 'http://127.0.0.1:9/hook' } })
    refused(await d.raw('/api/endpoints', json(h, { ...body, webhookUrl: 'http://127.0.0.1:9/hook2' })), 'webhooks', 1)
    const second = await client.createEndpoint({ body })
    refused(
      await d.raw(`/api/endpoints/${second.id}`, json(h, { webhookUrl: 'http://127.0.0.1:9/hook2' })),
      'webhooks',
      1,
    )
    refused(await d.raw('/api/endpoints', json(h, body)), 'endpoints', 2)
    await client.deleteEndpoint({ params: { id: second.id } })
    await client.createEndpoint({ body })
  })

  it('refuses a second live user key and a second partner key of a dashboard wallet', async () => {
    const c = dashboardClient(d.urls.api)
    await c.signIn(privateKeyToAccount(generatePrivateKey()), d.services.base.chainId)
    expect((await c.call('POST', '/user-keys')).status).toBe(200)
    refused(await c.call('POST', '/user-keys'), 'userKeys', 1)
    expect((await c.call('POST', '/partner-keys', { name: 'first' })).status).toBe(200)
    refused(await c.call('POST', '/partner-keys', { name: 'second' }), 'partnerKeys', 1)
  })

  it("refuses a user's pay call beyond those in flight, and takes one again once it ends", async () => {
    const { h, client } = await newUser()
    const a = await client.createAgent({ body: { name: 'buyer', network: 'local-base' } })
    const url = `http://127.0.0.1:${(seller.address() as AddressInfo).port}/report`
    const first = d.raw(`/api/agents/${a.id}/pay`, json(h, { url }))
    await expect.poll(() => hanging.length, { timeout: 10_000 }).toBe(1)
    refused(await d.raw(`/api/agents/${a.id}/pay`, json(h, { url })), 'concurrentPays', 1)
    hanging[0]!.destroy()
    expect((await first).body.code).not.toBe('QUOTA_EXCEEDED')
    const again = d.raw(`/api/agents/${a.id}/pay`, json(h, { url }))
    await expect.poll(() => hanging.length, { timeout: 10_000 }).toBe(2)
    hanging[1]!.destroy()
    expect((await again).body.code).not.toBe('QUOTA_EXCEEDED')
  })
})

describe('default limits of new agents', () => {
  it('a new agent starts with the configured limits; the user lifts them', async () => {
    const { client } = await newUser()
    const a = await client.createAgent({ body: { name: 'careful', network: 'local-base' } })
    expect(a.limits).toMatchObject({ perPaymentUsd: '0.5', dailyUsd: null })
    expect(await client.setLimits({ params: { id: a.id }, body: { perPaymentUsd: null } })).toMatchObject({
      perPaymentUsd: null,
    })
  })

  it('hosted profiles default to 1 USD per payment and 10 USD a day; the local profile to none', () => {
    expect(newAgentLimits('testnet', {})).toEqual({ perPaymentUsd: '1', dailyUsd: '10' })
    expect(newAgentLimits('mainnet', {})).toEqual({ perPaymentUsd: '1', dailyUsd: '10' })
    expect(newAgentLimits('mainnet', { newAgentDailyUsd: null, newAgentPerPaymentUsd: '2' })).toEqual({
      perPaymentUsd: '2',
      dailyUsd: null,
    })
    expect(newAgentLimits('local', {})).toEqual({ perPaymentUsd: null, dailyUsd: null })
  })
})
