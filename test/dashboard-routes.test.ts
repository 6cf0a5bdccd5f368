import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { dashboardClient } from './helpers/dashboard.js'

/** The dashboard's JSON routes against a real daemon: SIWE refusals, sessions, CSRF, tenancy. */
let d: TestDaemon
let chainId: number
const kRoute = `/api/base/confirm?hash=0x${'ab'.repeat(32)}`

beforeAll(async () => {
  d = await startTestDaemon()
  chainId = d.services.base.chainId
})
afterAll(async () => d?.close())

const fresh = () => privateKeyToAccount(generatePrivateKey())

describe('SIWE sign-in', () => {
  it('signs in once; the same signed message replayed is refused', async () => {
    const c = dashboardClient(d.urls.api)
    const account = fresh()
    const signed = await c.signedMessage(account, chainId)
    const first = await c.login(signed)
    expect(first.status).toBe(200)
    expect(first.body.wallet).toBe(account.address)
    expect(first.setCookie).toMatch(/^parx_dashboard=[^;]+;.*HttpOnly/)
    expect(first.setCookie).toMatch(/SameSite=Strict/)
    expect(first.setCookie).toMatch(/Path=\/dashboard/)
    // Served over http://127.0.0.1: a Secure cookie would never come back.
    expect(first.setCookie).not.toMatch(/Secure/)
    const replay = await dashboardClient(d.urls.api).login(signed)
    expect(replay.status).toBe(401)
    expect(replay.body.code).toBe('SIWE_REJECTED')
    expect(replay.body.error).toMatch(/nonce is unknown or already used/)
  })

  it('refuses an expired message', async () => {
    const c = dashboardClient(d.urls.api)
    const signed = await c.signedMessage(fresh(), chainId, (m) => {
      m.issuedAt = new Date(Date.now() - 10 * 60_000).toISOString()
      m.expirationTime = new Date(Date.now() - 6 * 60_000).toISOString()
    })
    const r = await c.login(signed)
    expect(r.status).toBe(401)
    expect(r.body).toMatchObject({ code: 'SIWE_REJECTED' })
    expect(r.body.error).toMatch(/expired/)
  })

  it('refuses a message for another domain, another URI or a message with no expiry', async () => {
    const c = dashboardClient(d.urls.api)
    for (const [tweak, why] of [
      [(m: any) => (m.domain = 'evil.example'), /is for evil\.example/],
      [(m: any) => (m.uri = 'https://evil.example/dashboard'), /is for https:\/\/evil\.example/],
      [(m: any) => (m.expirationTime = undefined), /no issued-at or expiration/],
    ] as const) {
      const r = await c.login(await c.signedMessage(fresh(), chainId, tweak))
      expect(r.status).toBe(401)
      expect(r.body.code).toBe('SIWE_REJECTED')
      expect(r.body.error).toMatch(why)
    }
  })

  it('refuses a wallet on the wrong chain, and a message edited to name one', async () => {
    const c = dashboardClient(d.urls.api)
    const asked = await c.call('POST', '/siwe/message', { address: fresh().address, chainId: 1 })
    expect(asked.status).toBe(400)
    expect(asked.body.code).toBe('BAD_REQUEST')
    expect(asked.body.error).toMatch(new RegExp(`switch it to chain ${chainId}`))
    const r = await c.login(await c.signedMessage(fresh(), chainId, (m) => (m.chainId = 1)))
    expect(r.status).toBe(401)
    expect(r.body.error).toMatch(/names chain 1/)
  })

  it('refuses a signature by another wallet', async () => {
    const c = dashboardClient(d.urls.api)
    const { message } = await c.signedMessage(fresh(), chainId)
    const r = await c.login({ message, signature: await fresh().signMessage({ message }) })
    expect(r.status).toBe(401)
    expect(r.body.code).toBe('SIWE_REJECTED')
  })
})

describe('contract wallets (ERC-1271) on the Base chain', () => {
  // Runtime code answering every call with a fixed bytes4: the ERC-1271 magic value 0x1626ba7e
  // (a wallet that approves the signature) or 0xffffffff (one that does not).
  const answering = (word: string) => `0x63${word}60e01b60005260206000f3` as const
  const walletAt = async (code: `0x${string}`) => {
    const address = fresh().address
    await d.services.base.client.request({ method: 'anvil_setCode' as never, params: [address, code] as never })
    return address
  }
  const signAs = async (address: `0x${string}`) => {
    const c = dashboardClient(d.urls.api)
    const asked = await c.call('POST', '/siwe/message', { address, chainId })
    const message: string = asked.body.message
    // Signed by some EOA: it does not recover to the contract, so the contract is asked.
    return c.login({ message, signature: await fresh().signMessage({ message }) })
  }

  it('signs in a contract wallet whose isValidSignature approves, and refuses one whose does not', async () => {
    const approving = await walletAt(answering('1626ba7e'))
    const ok = await signAs(approving)
    expect(ok.status).toBe(200)
    expect(ok.body.wallet).toBe(approving)
    const refusing = await walletAt(answering('ffffffff'))
    const no = await signAs(refusing)
    expect(no.status).toBe(401)
    expect(no.body.code).toBe('SIWE_REJECTED')
  })
})

describe('sessions and CSRF', () => {
  it('needs a session for every JSON route', async () => {
    const c = dashboardClient(d.urls.api)
    for (const [m, p] of [
      ['GET', '/session'],
      ['GET', '/partner-keys'],
      ['GET', '/user-keys'],
      ['GET', '/agents'],
      ['GET', '/approvals'],
      ['POST', '/partner-keys'],
    ] as const) {
      const r = await c.call(m, p, m === 'POST' ? { name: 'x' } : undefined)
      expect(r.status, `${m} ${p}`).toBe(401)
      expect(r.body.code).toBe('UNAUTHORIZED')
    }
  })

  it('refuses a change without the session CSRF token, or with another one', async () => {
    const c = dashboardClient(d.urls.api)
    await c.signIn(fresh(), chainId)
    const missing = await c.call('POST', '/partner-keys', { name: 'k' }, { csrf: null })
    expect(missing.status).toBe(403)
    expect(missing.body.code).toBe('CSRF_REJECTED')
    const other = dashboardClient(d.urls.api)
    await other.signIn(fresh(), chainId)
    const wrong = await c.call('POST', '/partner-keys', { name: 'k' }, { csrf: other.csrf })
    expect(wrong.status).toBe(403)
    expect((await c.call('GET', '/partner-keys')).body.keys).toEqual([])
    const ok = await c.call('POST', '/partner-keys', { name: 'k' })
    expect(ok.status).toBe(200)
  })

  it('refuses the session cookie after logout', async () => {
    const c = dashboardClient(d.urls.api)
    await c.signIn(fresh(), chainId)
    const kept = c.cookie
    expect((await c.call('GET', '/session')).status).toBe(200)
    const out = await c.call('POST', '/logout')
    expect(out.status).toBe(200)
    expect(out.setCookie).toMatch(/parx_dashboard=;/)
    c.cookie = kept
    const after = await c.call('GET', '/partner-keys')
    expect(after.status).toBe(401)
    expect(after.body.code).toBe('UNAUTHORIZED')
    expect((await c.call('POST', '/partner-keys', { name: 'late' })).status).toBe(401)
  })
})

describe('partner keys bound to the wallet', () => {
  it('shows the secret in the create answer only; lists prefix and last four; validates at once on this server', async () => {
    const c = dashboardClient(d.urls.api)
    const account = fresh()
    await c.signIn(account, chainId)
    const created = await c.call('POST', '/partner-keys', { name: 'backend', description: 'prod' })
    expect(created.status).toBe(200)
    const secret: string = created.body.secret
    expect(secret).toMatch(/^parx-[0-9a-f]{32}$/)
    expect(created.body.key).toMatchObject({
      name: 'backend',
      description: 'prod',
      state: 'active',
      masked: `parx-…${secret.slice(-4)}`,
      lastUsedAt: null,
    })
    const list = await c.call('GET', '/partner-keys')
    expect(list.body.keys.map((k: any) => k.id)).toEqual([created.body.key.id])
    expect(JSON.stringify(list.body)).not.toContain(secret.slice(5, 33))
    expect(list.body.propagation).toMatch(/at once/)
    expect((await d.raw(kRoute, { headers: { 'x-api-key': secret } })).status).toBe(200)
    // The operator's view names the wallet that owns it.
    const op = await d.call('/api/operator/keys', {
      query: { owner: account.address.toLowerCase() },
      headers: d.operatorHeaders(),
    })
    expect(op.keys[0]).toMatchObject({ id: created.body.key.id, ownerWallet: account.address.toLowerCase() })
  })

  it("another wallet's key id is NOT_FOUND for every action, and its list stays its own", async () => {
    const a = dashboardClient(d.urls.api)
    const b = dashboardClient(d.urls.api)
    await a.signIn(fresh(), chainId)
    await b.signIn(fresh(), chainId)
    const key = (await a.call('POST', '/partner-keys', { name: 'a-key' })).body
    expect((await b.call('GET', '/partner-keys')).body.keys).toEqual([])
    for (const [m, p] of [
      ['POST', `/partner-keys/${key.key.id}/deactivate`],
      ['DELETE', `/partner-keys/${key.key.id}`],
    ] as const) {
      const r = await b.call(m, p)
      expect(r.status, `${m} ${p}`).toBe(404)
      expect(r.body.code).toBe('NOT_FOUND')
    }
    expect((await d.raw(kRoute, { headers: { 'x-api-key': key.secret } })).status).toBe(200)
    expect((await a.call('GET', '/partner-keys')).body.keys[0].state).toBe('active')
    const userKey = (await a.call('POST', '/user-keys')).body
    const r = await b.call('DELETE', `/user-keys/${userKey.key.id}`)
    expect(r.status).toBe(404)
    expect(r.body.code).toBe('NOT_FOUND')
  })

  it("another wallet's agent is NOT_FOUND on every agent route", async () => {
    const a = dashboardClient(d.urls.api)
    const b = dashboardClient(d.urls.api)
    await a.signIn(fresh(), chainId)
    await b.signIn(fresh(), chainId)
    const agent = (await a.call('POST', '/agents', { name: 'mine', network: 'local-radius' })).body
    expect(agent.id).toMatch(/^[0-9a-f-]{36}$/)
    const key = (await a.call('POST', `/agents/${agent.id}/keys`, { label: 'x' })).body
    for (const [m, p, body] of [
      ['GET', `/agents/${agent.id}`, undefined],
      ['POST', `/agents/${agent.id}/limits`, { dailyUsd: '1' }],
      ['POST', `/agents/${agent.id}/keys`, {}],
      ['DELETE', `/agents/${agent.id}/keys/${key.key.id}`, undefined],
      ['GET', `/agents/${agent.id}/spending`, undefined],
      ['GET', `/agents/${agent.id}/payments`, undefined],
    ] as const) {
      const r = await b.call(m, p, body)
      expect(r.status, `${m} ${p}`).toBe(404)
      expect(r.body.code).toBe('NOT_FOUND')
    }
    expect((await b.call('GET', '/agents')).body.agents).toEqual([])
    const detail = (await a.call('GET', `/agents/${agent.id}`)).body
    expect(detail.keys.map((k: any) => k.revokedAt)).toEqual([null])
    expect(detail.limits.dailyUsd).toBeNull()
  })

  it("an agent's spending: 30 UTC days ending today, each 0 before any spend, and its daily limit; its payments list filtered and paged", async () => {
    const c = dashboardClient(d.urls.api)
    await c.signIn(fresh(), chainId)
    const agent = (await c.call('POST', '/agents', { name: 'chart', network: 'local-radius' })).body
    await c.call('POST', `/agents/${agent.id}/limits`, { dailyUsd: '12.5' })
    const r = await c.call('GET', `/agents/${agent.id}/spending`)
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ agentId: agent.id, timeZone: 'UTC', dailyLimitUsd: '12.5' })
    expect(r.body.days).toHaveLength(30)
    expect(r.body.days.at(-1)).toEqual({ day: new Date().toISOString().slice(0, 10), usd: '0', count: 0 })
    expect(r.body.days.every((x: any) => x.usd === '0' && x.count === 0)).toBe(true)
    const list = await c.call(
      'GET',
      `/agents/${agent.id}/payments?kind=pay&host=api.example.com&since=2026-01-01&limit=5`,
    )
    expect(list.status).toBe(200)
    expect(list.body).toEqual({ payments: [], nextCursor: null })
    for (const q of ['kind=refund', 'limit=0', 'since=yesterday', 'cursor=abc', 'colour=red']) {
      const bad = await c.call('GET', `/agents/${agent.id}/payments?${q}`)
      expect(bad.status, q).toBe(400)
      expect(bad.body.code, q).toBe('BAD_REQUEST')
    }
  })

  it('refuses bad fields with a 400 naming the field, a malformed id with 404', async () => {
    const c = dashboardClient(d.urls.api)
    await c.signIn(fresh(), chainId)
    const r = await c.call('POST', '/partner-keys', { name: '' })
    expect(r.status).toBe(400)
    expect(r.body.error).toMatch(/name/)
    // A malformed id is a resource that does not exist (src/sdk/parse-input.ts).
    const bad = await c.call('POST', '/partner-keys/not-a-uuid/deactivate')
    expect(bad.status).toBe(404)
    expect(bad.body.code).toBe('NOT_FOUND')
  })
})

describe("an agent's rules and the user's approvals (issue 41 item 7)", () => {
  it("sets the agent's payee rules, refuses a bad list with a 400 naming it, and another wallet's agent is NOT_FOUND", async () => {
    const a = dashboardClient(d.urls.api)
    const b = dashboardClient(d.urls.api)
    await a.signIn(fresh(), chainId)
    await b.signIn(fresh(), chainId)
    const agent = (await a.call('POST', '/agents', { name: 'ruled', network: 'local-radius' })).body
    const set = await a.call('POST', `/agents/${agent.id}/policy`, {
      denyHosts: ['bad.example'],
      allowTokens: ['pusd'],
    })
    expect(set.status, JSON.stringify(set.body)).toBe(200)
    expect(set.body).toMatchObject({
      agentId: agent.id,
      rules: { denyHosts: ['bad.example'], allowTokens: ['PUSD'], allowHosts: null },
      userRules: { denyHosts: null },
    })
    const detail = (await a.call('GET', `/agents/${agent.id}`)).body
    expect(detail.policy.rules).toEqual(set.body.rules)
    expect(detail.policy.userRules.denyHosts).toBeNull()
    const bad = await a.call('POST', `/agents/${agent.id}/policy`, { denyHosts: ['https://bad.example/'] })
    expect(bad.status).toBe(400)
    expect(bad.body).toMatchObject({ code: 'BAD_REQUEST' })
    expect(bad.body.error).toMatch(/denyHosts/)
    expect((await a.call('POST', `/agents/${agent.id}/policy`, {})).status).toBe(400)
    const other = await b.call('POST', `/agents/${agent.id}/policy`, { denyHosts: null })
    expect(other.status).toBe(404)
    expect(other.body.code).toBe('NOT_FOUND')
    expect((await a.call('GET', `/agents/${agent.id}`)).body.policy.rules.denyHosts).toEqual(['bad.example'])
  })

  it('lists pending approvals with agent name and seller host; decides once (CSRF checked); another wallet sees and decides none', async () => {
    const a = dashboardClient(d.urls.api)
    const b = dashboardClient(d.urls.api)
    await a.signIn(fresh(), chainId)
    await b.signIn(fresh(), chainId)
    const agent = (await a.call('POST', '/agents', { name: 'asker', network: 'local-radius' })).body
    const row = (await d.services.platform.store.agent(agent.id))!
    // Held as pay's gate holds one (daemon/buyer/approvals/gate.ts): the store row, nothing signed.
    const ask = (target: string, at: number) =>
      d.services.platform.approvals.create(
        {
          agent_id: agent.id,
          user_id: row.user_id,
          kind: 'pay',
          request_hash: target,
          target,
          method: 'GET',
          amount: '6',
          token: 'PUSD',
          amountMicros: 6_000_000n,
        },
        900_000,
        at,
      )
    const first = await ask('https://seller.example:8443/report', Date.now() - 1000)
    const second = await ask('https://other.example/data', Date.now())

    const listed = await a.call('GET', '/approvals')
    expect(listed.status).toBe(200)
    expect(listed.body.decided).toEqual([])
    expect(listed.body.pending.map((x: any) => [x.id, x.agentName, x.host, x.amount, x.state])).toEqual([
      [second.id, 'asker', 'other.example', '6', 'pending'],
      [first.id, 'asker', 'seller.example:8443', '6', 'pending'],
    ])
    expect((await b.call('GET', '/approvals')).body).toEqual({ pending: [], decided: [] })
    for (const verb of ['approve', 'deny']) {
      const r = await b.call('POST', `/approvals/${first.id}/${verb}`)
      expect(r.status, verb).toBe(404)
      expect(r.body.code).toBe('NOT_FOUND')
    }
    const noCsrf = await a.call('POST', `/approvals/${first.id}/approve`, undefined, { csrf: null })
    expect(noCsrf.status).toBe(403)
    expect(noCsrf.body.code).toBe('CSRF_REJECTED')
    expect((await a.call('POST', '/approvals/not-a-uuid/approve')).status).toBe(404)

    const approved = await a.call('POST', `/approvals/${first.id}/approve`)
    expect(approved.status).toBe(200)
    expect(approved.body).toMatchObject({
      id: first.id,
      state: 'approved',
      agentName: 'asker',
      host: 'seller.example:8443',
    })
    const again = await a.call('POST', `/approvals/${first.id}/deny`)
    expect(again.status).toBe(409)
    expect(again.body).toMatchObject({ code: 'APPROVAL_NOT_PENDING', state: 'approved' })
    expect((await a.call('POST', `/approvals/${second.id}/deny`)).body.state).toBe('denied')
    const after = (await a.call('GET', '/approvals')).body
    expect(after.pending).toEqual([])
    expect(after.decided.map((x: any) => [x.id, x.state])).toEqual([
      [second.id, 'denied'],
      [first.id, 'approved'],
    ])
    expect((await d.services.platform.approvals.get(first.id))!.state).toBe('approved')
  })
})

describe('the page', () => {
  it('is served with a same-origin content security policy and no framing', async () => {
    for (const p of ['/dashboard', '/dashboard/app.js', '/dashboard/app.css']) {
      const res = await fetch(`${d.urls.api}${p}`)
      expect(res.status, p).toBe(200)
      expect(res.headers.get('content-security-policy')).toMatch(/default-src 'none'; script-src 'self'/)
      expect(res.headers.get('x-frame-options')).toBe('DENY')
      const text = await res.text()
      // Nothing is loaded from elsewhere (the SVG namespace of the spend chart names, it does not load).
      expect(text).not.toMatch(/https?:\/\/(?!127\.0\.0\.1|www\.w3\.org\/2000\/svg)/)
    }
    const slash = await fetch(`${d.urls.api}/dashboard/`, { redirect: 'manual' })
    expect([slash.status, slash.headers.get('location')]).toEqual([308, '/dashboard'])
  })
})

// Last: it spends this client address's sign-in allowance.
describe('sign-in rate limit', () => {
  it('refuses sign-in messages beyond the burst with RATE_LIMITED', async () => {
    const c = dashboardClient(d.urls.api)
    const address = fresh().address
    const statuses: number[] = []
    for (let i = 0; i < 40; i++) statuses.push((await c.call('POST', '/siwe/message', { address, chainId })).status)
    expect(statuses).toContain(429)
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([])
    const r = await c.call('POST', '/siwe/message', { address, chainId })
    expect(r.body.code).toBe('RATE_LIMITED')
  })
})
