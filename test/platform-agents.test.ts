import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { getAddress } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { keyFilePath } from '../src/config/paths.js'
import { createPlatformClient } from '../src/sdk/platform/client.js'
import { manifest as manifestSchema } from '../src/sdk/platform/manifest.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'

/**
 * The platform's users, agents, agent keys and limits over HTTP against a real daemon: the typed
 * client (which checks every answer against the contract) for what succeeds, raw requests for
 * statuses and codes of what must not: wrong, revoked and cross-tenant keys.
 */
let d: TestDaemon
let url: string

beforeAll(async () => {
  d = await startTestDaemon()
  url = d.urls.platform
})
afterAll(async () => d?.close())

const op = () => createPlatformClient({ url, operatorToken: d.services.keys.operatorToken })
const json = (headers: Record<string, string>, body?: unknown, method = body === undefined ? 'GET' : 'POST') => ({
  method,
  headers: { ...headers, 'content-type': 'application/json' },
  body: body === undefined ? undefined : JSON.stringify(body),
})

async function newUser(name = 'ci') {
  const { user, userKey } = await op().createUser({ body: { name } })
  return { user, userKey, client: createPlatformClient({ url, userKey }) }
}

describe('users', () => {
  it('creates a user with the operator token and shows it to its key', async () => {
    const wallet = '0x4ac8ee94a7435b4fbbd62f70c95f66537822ae3a'
    const { user, userKey } = await op().createUser({ body: { name: 'alice', wallet } })
    expect(userKey).toMatch(/^parx-u-[0-9a-f]{64}$/)
    expect(user).toMatchObject({ name: 'alice', wallet: getAddress(wallet), agents: 0, endpoints: 0 })
    const me = await createPlatformClient({ url, userKey }).whoamiUser({})
    expect(me).toEqual(user)
    // one user per wallet
    const again = await d.raw('/api/operator/users', json(d.operatorHeaders(), { wallet }))
    expect(again.status).toBe(409)
    expect(again.body.code).toBe('ALREADY_EXISTS')
  })

  it('refuses user creation without the operator token, and whoami without a valid user key', async () => {
    expect((await d.raw('/api/operator/users', json({}, {}))).status).toBe(401)
    for (const key of ['nope', `parx-u-${'0'.repeat(64)}`, `parx-a-${'0'.repeat(64)}`]) {
      const r = await d.raw('/api/users/me', { headers: { 'x-user-key': key } })
      expect(r.status, key).toBe(401)
      expect(r.body.code).toBe('UNAUTHORIZED')
    }
    expect((await d.raw('/api/users/me')).body.code).toBe('UNAUTHORIZED')
  })
})

describe('agents', () => {
  it('creates agents on local-base and local-radius with fresh wallets and tokens from the deployment', async () => {
    const { client } = await newUser()
    const base = await client.createAgent({ body: { name: 'buyer', network: 'local-base' } })
    expect(base).toMatchObject({
      name: 'buyer',
      network: 'local-base',
      chainId: d.services.base.chainId,
      sendMethod: 'userOperation',
    })
    expect(base.tokens.map((t) => t.symbol).sort()).toEqual(Object.keys(d.services.base.tokens).sort())
    for (const t of base.tokens) expect(t.address).toBe(d.services.base.tokens[t.symbol]!.address)
    const open = { limitUsd: null, spentUsd: '0', remainingUsd: null }
    const windows = { hour: open, day: open, week: open, month: open }
    expect(base.limits).toEqual({
      perPaymentUsd: null,
      hourlyUsd: null,
      dailyUsd: null,
      weeklyUsd: null,
      monthlyUsd: null,
      allowedHosts: null,
      approveAboveUsd: null,
      spentTodayUsd: '0',
      remainingTodayUsd: null,
      windows,
      user: { perPaymentUsd: null, windows },
      mayStillSpendUsd: null,
    })
    const radius = await client.createAgent({ body: { name: 'payer', network: 'LOCAL-RADIUS' } })
    expect(radius).toMatchObject({
      network: 'local-radius',
      sendMethod: 'transfer',
      tokens: [{ symbol: 'PUSD', decimals: 6 }],
    })
    expect(radius.wallet).not.toBe(base.wallet)
    const { agents } = await client.listAgents({})
    expect(agents.map((a) => a.id)).toEqual([base.id, radius.id])
    expect(await client.showAgent({ params: { id: base.id } })).toEqual(base)
    expect((await client.whoamiUser({})).agents).toBe(2)
  })

  it('refuses a network agents cannot live on, or one this profile does not serve', async () => {
    const { userKey } = await newUser()
    const h = { 'x-user-key': userKey }
    const solana = await d.raw('/api/agents', json(h, { name: 'x', network: 'local-solana' }))
    expect(solana.status).toBe(400)
    expect(solana.body.code).toBe('NETWORK_UNSUPPORTED')
    const testnet = await d.raw('/api/agents', json(h, { name: 'x', network: 'base-sepolia' }))
    expect(testnet.body.code).toBe('NETWORK_UNSUPPORTED')
    const noName = await d.raw('/api/agents', json(h, { network: 'local-base' }))
    expect(noName.body).toEqual({ error: "missing field 'name'", code: 'BAD_REQUEST', requestId: expect.any(String) })
  })

  it('keeps the wallet key sealed: never in an answer, the store or the log in clear', async () => {
    const { client } = await newUser()
    const a = await client.createAgent({ body: { name: 'sealed', network: 'local-base' } })
    const row = await d.services.store.db
      .selectFrom('platform_agents')
      .selectAll()
      .where('id', '=', a.id)
      .executeTakeFirstOrThrow()
    // Sealed under the HKDF-derived key, naming the platform key that sealed it (rotation: parx keys reseal).
    expect(row.wallet_sealed).toMatch(/^v2\.[^.]+\./)
    const { privateKeyToAccount } = await import('viem/accounts')
    const { walletSeal } = await import('../daemon/platform/wallet-seal.js')
    const keyFile = JSON.parse(readFileSync(keyFilePath(d.dataDir), 'utf8')) as { platformWallet: string }
    const pk = walletSeal(keyFile.platformWallet).open(a.id, row.wallet_sealed)
    expect(privateKeyToAccount(pk).address).toBe(a.wallet)
    expect(statSync(keyFilePath(d.dataDir)).mode & 0o777).toBe(0o600)
    const all = JSON.stringify(await client.listAgents({}))
    expect(all).not.toContain(pk.slice(2))
    expect(readFileSync(join(d.dataDir, 'parx.log'), 'utf8')).not.toContain(pk.slice(2))
  })
})

describe('agent keys and tenancy', () => {
  it('an agent key sees only its own agent; revoked at once; wrong kinds are 403, other tenants 404', async () => {
    const alice = await newUser('alice')
    const bob = await newUser('bob')
    const a = await alice.client.createAgent({ body: { name: 'a', network: 'local-base' } })
    const b = await alice.client.createAgent({ body: { name: 'b', network: 'local-radius' } })
    const { key, agentKey } = await alice.client.createAgentKey({ params: { id: a.id }, body: { label: 'ci' } })
    expect(agentKey).toMatch(/^parx-a-[0-9a-f]{64}$/)
    expect(key).toMatchObject({ agentId: a.id, label: 'ci', hint: `parx-a-…${agentKey.slice(-4)}`, revokedAt: null })
    const agentA = createPlatformClient({ url, agentKey })
    expect((await agentA.whoamiAgent({})).id).toBe(a.id)
    expect((await agentA.showAgent({ params: { id: a.id } })).wallet).toBe(a.wallet)
    expect(await agentA.getLimits({ params: { id: a.id } })).toEqual(a.limits)
    // the key is listed by its mask only, with its use recorded
    const { keys } = await alice.client.listAgentKeys({ params: { id: a.id } })
    expect(keys).toHaveLength(1)
    expect(keys[0]!.lastUsedAt).not.toBeNull()
    expect(JSON.stringify(keys)).not.toContain(agentKey)

    const ah = { 'x-agent-key': agentKey }
    const expectCode = async (path: string, init: RequestInit, status: number, code: string) => {
      const r = await d.raw(path, init)
      expect([r.status, r.body.code], `${init.method ?? 'GET'} ${path}`).toEqual([status, code])
    }
    // agent A's key on agent B: 404, exactly like an id that does not exist
    await expectCode(`/api/agents/${b.id}`, { headers: ah }, 404, 'NOT_FOUND')
    await expectCode(`/api/agents/${b.id}/limits`, { headers: ah }, 404, 'NOT_FOUND')
    await expectCode(`/api/agents/00000000-0000-4000-8000-000000000000`, { headers: ah }, 404, 'NOT_FOUND')
    await expectCode('/api/agents/not-a-uuid', { headers: ah }, 404, 'NOT_FOUND')
    // the wrong kind of key: 403
    await expectCode('/api/agents', { headers: ah }, 403, 'FORBIDDEN')
    await expectCode('/api/users/me', { headers: ah }, 403, 'FORBIDDEN')
    await expectCode(`/api/agents/${a.id}/keys`, { headers: ah }, 403, 'FORBIDDEN')
    await expectCode('/api/agents/me', { headers: { 'x-user-key': alice.userKey } }, 403, 'FORBIDDEN')
    // an agent cannot raise its own limits
    await expectCode(`/api/agents/${a.id}/limits`, json(ah, { dailyUsd: '1000' }), 403, 'FORBIDDEN')
    // user Bob on Alice's agents: 404
    const bh = { 'x-user-key': bob.userKey }
    await expectCode(`/api/agents/${a.id}`, { headers: bh }, 404, 'NOT_FOUND')
    await expectCode(`/api/agents/${a.id}/limits`, json(bh, { dailyUsd: '1000' }), 404, 'NOT_FOUND')
    await expectCode(`/api/agents/${a.id}/keys`, json(bh, {}), 404, 'NOT_FOUND')
    await expectCode(`/api/agents/${a.id}/keys/${key.id}`, { method: 'DELETE', headers: bh }, 404, 'NOT_FOUND')
    expect((await bob.client.listAgents({})).agents).toEqual([])

    // revocation takes effect at once, and revoking twice answers the same
    const revoked = await alice.client.revokeAgentKey({ params: { id: a.id, keyId: key.id } })
    expect(revoked.revokedAt).not.toBeNull()
    expect(await alice.client.revokeAgentKey({ params: { id: a.id, keyId: key.id } })).toEqual(revoked)
    await expectCode('/api/agents/me', { headers: ah }, 401, 'UNAUTHORIZED')
    // a key id of another agent
    await expectCode(
      `/api/agents/${b.id}/keys/${key.id}`,
      { method: 'DELETE', headers: { 'x-user-key': alice.userKey } },
      404,
      'NOT_FOUND',
    )
  })
})

describe('limits', () => {
  it('the owning user sets, changes and removes limits; the agent reads them', async () => {
    const { client } = await newUser()
    const a = await client.createAgent({ body: { name: 'a', network: 'local-base' } })
    const set = await client.setLimits({
      params: { id: a.id },
      body: { perPaymentUsd: '5', dailyUsd: '50', allowedHosts: ['API.example.com', '*.example.org'] },
    })
    expect(set).toMatchObject({
      perPaymentUsd: '5',
      hourlyUsd: null,
      dailyUsd: '50',
      allowedHosts: ['api.example.com', '*.example.org'],
      spentTodayUsd: '0',
      remainingTodayUsd: '50',
      mayStillSpendUsd: '5',
    })
    expect(set.windows.day).toEqual({ limitUsd: '50', spentUsd: '0', remainingUsd: '50' })
    // a field left out stays; null removes
    const changed = await client.setLimits({ params: { id: a.id }, body: { perPaymentUsd: null } })
    expect(changed).toMatchObject({
      perPaymentUsd: null,
      dailyUsd: '50',
      allowedHosts: ['api.example.com', '*.example.org'],
    })
    const { agentKey } = await client.createAgentKey({ params: { id: a.id }, body: {} })
    expect(await createPlatformClient({ url, agentKey }).getLimits({ params: { id: a.id } })).toEqual(changed)
    expect((await client.showAgent({ params: { id: a.id } })).limits).toEqual(changed)
  })

  it('refuses malformed limits with the field named', async () => {
    const { userKey, client } = await newUser()
    const a = await client.createAgent({ body: { name: 'a', network: 'local-base' } })
    const h = { 'x-user-key': userKey }
    const bad = [
      [{ dailyUsd: 50 }, 'dailyUsd'],
      [{ dailyUsd: '0' }, 'dailyUsd'],
      [{ perPaymentUsd: '1.0000001' }, 'perPaymentUsd'],
      [{ allowedHosts: ['https://x.com'] }, 'allowedHosts.0'],
      [{}, ''],
      [{ other: 1 }, ''],
    ] as const
    for (const [body, field] of bad) {
      const r = await d.raw(`/api/agents/${a.id}/limits`, json(h, body))
      expect(r.status, JSON.stringify(body)).toBe(400)
      expect(r.body.code).toBe('BAD_REQUEST')
      if (field) expect(r.body.error).toContain(`'${field}'`)
    }
    const malformed = await d.raw(`/api/agents/${a.id}/limits`, {
      method: 'POST',
      headers: { ...h, 'content-type': 'application/json' },
      body: '{',
    })
    expect(malformed.body.code).toBe('MALFORMED_JSON')
  })
})

describe('payee and network rules (issue 41 item 2)', () => {
  it("a user's default policy is copied into agents created afterwards; agents created before keep theirs", async () => {
    const { client } = await newUser()
    const before = await client.createAgent({ body: { name: 'before', network: 'local-base' } })
    const set = await client.setDefaultPolicy({
      body: { allowTokens: ['usdc', 'pusd'], allowHosts: ['*.example.com'], perPaymentUsd: '1' },
    })
    expect(set.default).toMatchObject({
      perPaymentUsd: '1',
      dailyUsd: null,
      rules: { allowTokens: ['USDC', 'PUSD'], allowHosts: ['*.example.com'], denyPayTo: null },
    })
    expect(set.rules.allowTokens).toBeNull()
    const after = await client.createAgent({ body: { name: 'after', network: 'local-base' } })
    expect(after.limits).toMatchObject({ perPaymentUsd: '1', allowedHosts: ['*.example.com'] })
    expect((await client.getAgentPolicy({ params: { id: after.id } })).rules).toMatchObject({
      allowTokens: ['USDC', 'PUSD'],
      allowHosts: ['*.example.com'],
    })
    expect((await client.getAgentPolicy({ params: { id: before.id } })).rules).toMatchObject({
      allowTokens: null,
      allowHosts: null,
    })
    expect((await client.showAgent({ params: { id: before.id } })).limits.perPaymentUsd).toBeNull()
    // Copied, not inherited: changing the default leaves the agent as created.
    await client.setDefaultPolicy({ body: { clear: true } })
    expect((await client.getAgentPolicy({ params: { id: after.id } })).rules.allowTokens).toEqual(['USDC', 'PUSD'])
    expect((await client.getUserPolicy({})).default).toEqual({
      rules: expect.objectContaining({ allowTokens: null }),
      perPaymentUsd: null,
      dailyUsd: null,
    })
  })

  it("the owning user sets an agent's rules; its agent key reads them (with the user's) but cannot set them; bad entries are 400", async () => {
    const { userKey, client } = await newUser()
    const a = await client.createAgent({ body: { name: 'a', network: 'local-base' } })
    await client.setUserPolicy({ body: { denyNetworks: ['eip155:8453'] } })
    const p = await client.setAgentPolicy({
      params: { id: a.id },
      body: { denyPayTo: ['0x00000000000000000000000000000000000000aa'], allowNetworks: ['local-base'] },
    })
    expect(p).toMatchObject({
      agentId: a.id,
      rules: { denyPayTo: ['0x00000000000000000000000000000000000000AA'], allowNetworks: ['local-base'] },
      userRules: { denyNetworks: ['eip155:8453'] },
    })
    const { agentKey } = await client.createAgentKey({ params: { id: a.id }, body: {} })
    expect(await createPlatformClient({ url, agentKey }).getAgentPolicy({ params: { id: a.id } })).toEqual(p)
    const forbidden = await d.raw(`/api/agents/${a.id}/policy`, json({ 'x-agent-key': agentKey }, { clear: true }))
    expect([forbidden.status, forbidden.body.code]).toEqual([403, 'FORBIDDEN'])
    for (const [body, field] of [
      [{ denyPayTo: ['0x12'] }, 'denyPayTo.0'],
      [{ allowNetworks: ['Base Mainnet'] }, 'allowNetworks.0'],
      [{}, ''],
      [{ other: [] }, ''],
    ] as const) {
      const r = await d.raw(`/api/agents/${a.id}/policy`, json({ 'x-user-key': userKey }, body))
      expect([r.status, r.body.code], JSON.stringify(body)).toEqual([400, 'BAD_REQUEST'])
      if (field) expect(r.body.error).toContain(`'${field}'`)
    }
    // Another tenant's agent is not found.
    const other = await newUser('other')
    const hidden = await d.raw(`/api/agents/${a.id}/policy`, json({ 'x-user-key': other.userKey }))
    expect(hidden.status).toBe(404)
  })
})

describe('manifest', () => {
  it('describes the local networks, tokens and the routes an agent may call', async () => {
    const r = await d.raw('/api/manifest')
    expect(r.status).toBe(200)
    const m = manifestSchema.parse(r.body)
    expect(m.profile).toBe('local')
    expect(m.networks.map((n) => n.key).sort()).toEqual(['local-base', 'local-radius'])
    const base = m.networks.find((n) => n.key === 'local-base')!
    expect(base.tokens.find((t) => t.symbol === 'PUSD')!.address).toBe(d.services.base.tokens.PUSD!.address)
    expect(m.payments.facilitator).toBe(d.urls.facilitator)
    expect(m.routes.map((x) => x.path)).toContain('/api/agents/me')
  })
})
