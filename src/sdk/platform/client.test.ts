import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BaseError } from '../../errors/index.js'
import { ApiError } from '../http.js'
import { createPlatformClient } from './client.js'
import { hashPlatformKey, maskPlatformKey, newPlatformKey, platformKeyKind } from './keys.js'
import { platformRoutes } from './routes.js'

const AGENT_ID = '7d0e1c8a-3b1e-4f6a-9a52-3d2f0c1b9e01'
const KEY_ID = '0b9a4e52-1c2d-4e3f-8a7b-6c5d4e3f2a10'
const WALLET = '0x00000000000000000000000000000000000000Aa'
const NOW = '2026-11-23T20:00:00.000Z'
const userKey = newPlatformKey('user')
const agentKey = newPlatformKey('agent')

const openWindow = { limitUsd: null, spentUsd: '0', remainingUsd: null }
const windows = { hour: openWindow, day: openWindow, week: openWindow, month: openWindow }
const limits = {
  perPaymentUsd: '5',
  hourlyUsd: null,
  dailyUsd: null,
  weeklyUsd: null,
  monthlyUsd: null,
  allowedHosts: null,
  spentTodayUsd: '0',
  remainingTodayUsd: null,
  windows,
  user: { perPaymentUsd: null, windows },
  mayStillSpendUsd: '5',
}
const agent = {
  id: AGENT_ID,
  name: 'buyer',
  network: 'local-base',
  chainId: 84530017,
  wallet: WALLET,
  sendMethod: 'userOperation',
  tokens: [{ symbol: 'PUSD', decimals: 18, address: null }],
  createdAt: NOW,
  limits,
}

/** A real HTTP server on 127.0.0.1 that records what the client sent and answers per path. */
type Seen = { method: string; url: string; headers: IncomingMessage['headers']; body: string }
let server: Server
let url: string
const seen: Seen[] = []
const answers = new Map<string, { status: number; body: unknown }>()

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = ''
    req.on('data', (d) => (body += d))
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body })
      const a = answers.get(`${req.method} ${req.url}`) ?? {
        status: 404,
        body: { error: 'no route', code: 'NOT_FOUND' },
      }
      res.writeHead(a.status, { 'content-type': 'application/json' }).end(JSON.stringify(a.body))
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise<void>((r) => server.close(() => r())))

describe('platform client', () => {
  it("sends a route's query as given, after checking it against the contract (a bad one never leaves)", async () => {
    const page = { payments: [], nextCursor: null }
    answers.set(`GET /api/agents/${AGENT_ID}/payments?kind=pay&since=2026-11-01&limit=2`, { status: 200, body: page })
    const c = createPlatformClient({ url, agentKey })
    expect(
      await c.listPayments({ params: { id: AGENT_ID }, query: { kind: 'pay', since: '2026-11-01', limit: '2' } }),
    ).toEqual(page)
    expect(seen.at(-1)!.url).toBe(`/api/agents/${AGENT_ID}/payments?kind=pay&since=2026-11-01&limit=2`)
    const before = seen.length
    await expect(c.listPayments({ params: { id: AGENT_ID }, query: { cursor: 'not-one' } })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message: expect.stringMatching(/query parameter 'cursor'/),
    })
    await expect(c.report({ params: { id: AGENT_ID }, query: { since: 'yesterday' } })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    })
    expect(seen.length).toBe(before)
  })

  it('fills path params from the route table and sends the agent key in x-agent-key', async () => {
    answers.set(`GET /api/agents/${AGENT_ID}/limits`, { status: 200, body: limits })
    const c = createPlatformClient({ url, agentKey, userKey })
    // A daemon from before approvals sends no approveAboveUsd: the client reads it as null (never asked).
    expect(await c.getLimits({ params: { id: AGENT_ID } })).toEqual({ ...limits, approveAboveUsd: null })
    const req = seen.at(-1)!
    expect(req.headers['x-agent-key']).toBe(agentKey)
    expect(req.headers['x-user-key']).toBeUndefined()
  })

  it('sends user routes with x-user-key and the body as parsed by the contract', async () => {
    answers.set('POST /api/agents', { status: 200, body: agent })
    const c = createPlatformClient({ url, userKey })
    const a = await c.createAgent({ body: { name: ' buyer ', network: 'LOCAL-BASE' } })
    expect(a.wallet).toBe('0x00000000000000000000000000000000000000AA')
    const req = seen.at(-1)!
    expect(req.headers['x-user-key']).toBe(userKey)
    expect(JSON.parse(req.body)).toEqual({ name: 'buyer', network: 'local-base' })
  })

  it('DELETE with two params', async () => {
    const revoked = {
      id: KEY_ID,
      agentId: AGENT_ID,
      label: null,
      hint: 'parx-a-…abcd',
      createdAt: NOW,
      lastUsedAt: null,
      revokedAt: NOW,
    }
    answers.set(`DELETE /api/agents/${AGENT_ID}/keys/${KEY_ID}`, { status: 200, body: revoked })
    const c = createPlatformClient({ url, userKey })
    expect(await c.revokeAgentKey({ params: { id: AGENT_ID, keyId: KEY_ID } })).toEqual(revoked)
    expect(seen.at(-1)!.method).toBe('DELETE')
  })

  it('refuses a bad body locally, before any request', async () => {
    const before = seen.length
    const c = createPlatformClient({ url, agentKey })
    const e = await c.send({ params: { id: AGENT_ID }, body: { to: '0x12', amount: '1' } }).catch((x) => x)
    expect(e).toBeInstanceOf(BaseError)
    expect(e.message).toBe("invalid field 'to': not an EVM address (0x followed by 40 hex characters)")
    const bad = await c.showAgent({ params: { id: 'me' } }).catch((x) => x)
    expect(bad.code).toBe('NOT_FOUND')
    expect(seen.length).toBe(before)
  })

  it('needs the right kind of key, naming the login command', async () => {
    const e = await createPlatformClient({ url, agentKey })
      .listAgents({})
      .catch((x) => x)
    expect(e).toMatchObject({
      code: 'UNAUTHORIZED',
      message: 'listAgents needs a user key; log in with parx auth user login --user-key',
    })
  })

  it('surfaces the server code and refuses answers that break the contract', async () => {
    answers.set('GET /api/agents/me', {
      status: 403,
      body: { error: 'a user key cannot act as an agent', code: 'FORBIDDEN' },
    })
    const e = await createPlatformClient({ url, agentKey })
      .whoamiAgent({})
      .catch((x) => x)
    expect(e).toBeInstanceOf(ApiError)
    expect(e).toMatchObject({ status: 403, code: 'FORBIDDEN' })
    answers.set('GET /api/agents/me', { status: 200, body: { ...agent, wallet: 'nope' } })
    const m = await createPlatformClient({ url, agentKey })
      .whoamiAgent({})
      .catch((x) => x)
    expect(m.message).toMatch(/does not match this client's contract at 'wallet'/)
  })

  it('has one method per route', () => {
    const c = createPlatformClient({ url })
    for (const name of Object.keys(platformRoutes))
      expect(typeof (c as Record<string, unknown>)[name], name).toBe('function')
  })
})

describe('platform keys', () => {
  it('are prefixed by kind, hashed for storage and masked for display', () => {
    expect(platformKeyKind(userKey)).toBe('user')
    expect(platformKeyKind(agentKey)).toBe('agent')
    expect(platformKeyKind(userKey.replace('parx-u-', 'parx-a-'))).toBe('agent')
    expect(platformKeyKind(userKey.slice(0, -1))).toBeUndefined()
    expect(newPlatformKey('agent')).not.toBe(newPlatformKey('agent'))
    expect(hashPlatformKey(agentKey)).toMatch(/^[0-9a-f]{64}$/)
    expect(hashPlatformKey(agentKey)).not.toContain(agentKey.slice(7))
    expect(maskPlatformKey(agentKey)).toBe(`parx-a-…${agentKey.slice(-4)}`)
  })
})
