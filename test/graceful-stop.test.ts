import { connect } from 'node:net'
import express from 'express'
import { afterAll, describe, expect, it } from 'vitest'
import { createPlatformClient } from '../src/sdk/platform/client.js'
import { paymentGate } from '../src/sdk/x402/seller/middleware.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { randomAddress } from './helpers/x402.js'
import { listen } from './helpers/x402-buyers.js'

/**
 * Issue 28 item 6: a stop (what SIGTERM and Ctrl-C call) while three platform `pay` calls wait on
 * their seller used to reset all three connections, though the payments went on. Now the daemon
 * stops accepting, answers the three once their seller does, and only then stops.
 */
let d: TestDaemon | undefined
let seller: { url: string; close(): Promise<void> } | undefined
afterAll(async () => {
  await seller?.close()
  await d?.close().catch(() => {})
})

describe('a stop with pay calls in flight', () => {
  it('answers the three pay calls waiting on their seller, refuses new connections meanwhile, then stops', async () => {
    d = await startTestDaemon()
    const daemon = d
    const op = createPlatformClient({ url: daemon.urls.platform, operatorToken: daemon.services.keys.operatorToken })
    const { userKey } = await op.createUser({ body: { name: 'buyer' } })
    const user = createPlatformClient({ url: daemon.urls.platform, userKey })
    // Three buyers: one agent's concurrent payments to one seller would be the same payment to it.
    const buyers = await Promise.all(
      [1, 2, 3].map(async (i) => {
        const agent = await user.createAgent({ body: { name: `buyer-${i}`, network: 'local-base' } })
        await daemon.call('/api/local/faucet', {
          body: { network: 'local-base', to: agent.wallet, token: 'PUSD', amount: '1' },
        })
        const { agentKey } = await user.createAgentKey({ params: { id: agent.id }, body: {} })
        return { agent, agentKey }
      }),
    )

    // The seller settles, then holds its paid answers until released: the slow part of a pay is the seller's.
    const held: Array<() => void> = []
    const app = express()
    app.use((req, res, next) => {
      if (!req.header('payment-signature')) return next()
      const end = res.end.bind(res) as (...a: unknown[]) => typeof res
      res.end = ((...args: unknown[]) => {
        held.push(() => void end(...args))
        return res
      }) as typeof res.end
      next()
    })
    app.use(
      paymentGate({
        facilitator: { url: daemon.urls.facilitator },
        routes: {
          'GET /slow': {
            prices: [{ network: 'local-base', asset: 'PUSD', amount: String(10n ** 16n), payTo: randomAddress() }],
          },
        },
      }),
    )
    app.get('/slow', (_req, res) => void res.json({ data: 'worth the wait' }))
    seller = await listen(app)

    const pay = ({ agent, agentKey }: (typeof buyers)[number]) =>
      fetch(`${daemon.urls.api}/api/agents/${agent.id}/pay`, {
        method: 'POST',
        headers: { 'x-agent-key': agentKey, 'content-type': 'application/json' },
        body: JSON.stringify({ url: `${seller!.url}/slow` }),
      }).then(async (r) => ({
        status: r.status,
        connection: r.headers.get('connection'),
        body: (await r.json()) as { status?: number; body?: string; receipt?: { amount: string } },
      }))
    const calls = buyers.map(pay)
    while (held.length < 3) await new Promise((r) => setTimeout(r, 20))

    // A balancer's health check whose connection was open before the stop.
    const api = new URL(daemon.urls.api)
    const probe = connect(Number(api.port), api.hostname)
    await new Promise((r) => probe.once('connect', r))

    // SIGTERM's path: parx serve calls the daemon's stop().
    const stopped = daemon.stop()
    // Readiness says draining, so the balancer takes this replica out.
    let readiness = ''
    probe.on('data', (b) => (readiness += b.toString()))
    const probeClosed = new Promise((r) => probe.once('close', r))
    probe.write(`GET /api/readiness HTTP/1.1\r\nHost: ${api.host}\r\n\r\n`)
    await probeClosed
    expect(readiness).toMatch(/^HTTP\/1.1 503/)
    expect(readiness.toLowerCase()).toContain('connection: close')
    expect(readiness).toContain('"draining":true')
    // Once requests stop arriving, new connections are refused (a balancer retries those elsewhere).
    while (
      await fetch(`${daemon.urls.api}/api/health`).then(
        () => true,
        () => false,
      )
    )
      await new Promise((r) => setTimeout(r, 50))
    held.splice(0).forEach((release) => release())
    const answers = await Promise.all(calls)
    for (const a of answers) {
      expect(a.status, JSON.stringify(a.body)).toBe(200)
      expect(a.connection).toBe('close')
      expect(a.body.status).toBe(200)
      expect(JSON.parse(a.body.body!)).toEqual({ data: 'worth the wait' })
      expect(a.body.receipt).toMatchObject({ amount: '0.01' })
    }
    await stopped
  }, 240_000)
})
