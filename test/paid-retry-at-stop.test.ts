import express from 'express'
import { afterAll, describe, expect, it } from 'vitest'
import { createPlatformClient } from '../src/sdk/platform/client.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { randomAddress } from './helpers/x402.js'
import { listen } from './helpers/x402-buyers.js'

/**
 * Issue 39 item 4: three agent pays in flight through a paid endpoint of the same daemon when it
 * is stopped (SIGTERM's path), just as they send their paid requests on pooled connections the
 * stop closes as idle. On main each paid request was read and served on its closing connection
 * (its answer lost), and the pay's resend of the same payment was served a second time (the
 * upstream called 6 times for 3 payments; in the field the resend could meet the unfinished
 * settlement: 502 PAYMENT_REFUSED, charged, duplicate_settlement). Now a request on a closing
 * connection is never processed, a repeat gets the first answer, and each payment is served once.
 */
let d: TestDaemon | undefined
let upstream: { url: string; close(): Promise<void> } | undefined
const held: Array<() => void> = []
afterAll(async () => {
  held.splice(0).forEach((f) => f())
  await upstream?.close()
  await d?.close().catch(() => {})
})

describe('pays in flight through a paid endpoint at a stop', () => {
  it('all three get 200 with the upstream body, each paid once', async () => {
    d = await startTestDaemon()
    const daemon = d
    const op = createPlatformClient({ url: daemon.urls.platform, operatorToken: daemon.services.keys.operatorToken })
    const { userKey } = await op.createUser({ body: { name: 'both' } })
    const user = createPlatformClient({ url: daemon.urls.platform, userKey })

    // The upstream is slow: it holds its answers until released.
    let calls = 0
    let slow = true
    const app = express()
    app.get('/slow', (_req, res) => {
      const n = ++calls
      const answer = () => void res.json({ data: 'worth the wait', n })
      if (slow) held.push(answer)
      else setTimeout(answer, 300)
    })
    upstream = await listen(app)
    const e = await user.createEndpoint({
      body: {
        upstreamUrl: `${upstream.url}/slow`,
        price: '0.01',
        network: 'local-base',
        token: 'PUSD',
        payTo: randomAddress(),
      },
    })

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
    const pay = ({ agent, agentKey }: (typeof buyers)[number]) =>
      fetch(`${daemon.urls.api}/api/agents/${agent.id}/pay`, {
        method: 'POST',
        headers: { 'x-agent-key': agentKey, 'content-type': 'application/json' },
        body: JSON.stringify({ url: e.url }),
      }).then(async (r) => ({
        status: r.status,
        body: (await r.json()) as {
          status?: number
          body?: string
          receipt?: { amount: string }
          code?: string
          error?: string
        },
      }))
    // SIGTERM (parx serve calls the daemon's stop()) lands when the three pays have their 402 and
    // have signed: their connections to the paid endpoint sit idle in the pool and are closed by
    // the stop as each sends its paid request on one.
    let stopped: Promise<void> | undefined
    let signedAll!: () => void
    const allSigned = new Promise<void>((r) => (signedAll = r))
    const spends = daemon.services.platform.spends
    const signed = spends.signed.bind(spends)
    let n = 0
    spends.signed = async (...args: Parameters<typeof signed>) => {
      await signed(...args)
      if (++n === 3) {
        stopped = daemon.stop()
        signedAll()
      }
      await allSigned
    }
    const calls3 = buyers.map(pay)
    await allSigned
    // The upstream answers while the daemon drains (slowly still): a repeat of any of the payments must get the answer.
    slow = false
    held.splice(0).forEach((release) => release())
    const answers = await Promise.all(calls3)
    for (const a of answers) {
      expect(a.status, JSON.stringify(a.body)).toBe(200)
      expect(a.body.status).toBe(200)
      expect(JSON.parse(a.body.body!)).toMatchObject({ data: 'worth the wait' })
      expect(a.body.receipt).toMatchObject({ amount: '0.01' })
    }
    await stopped
    // Each payment served once upstream: a repeat was answered, not served again.
    expect(calls).toBe(3)
  }, 240_000)
})
