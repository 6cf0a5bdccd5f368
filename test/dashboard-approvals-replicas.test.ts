import express from 'express'
import { type Address, erc20Abi } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { paymentGate } from '../src/sdk/x402/seller/middleware.js'
import { runParx } from './helpers/cli.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { dashboardClient } from './helpers/dashboard.js'
import { testPostgres } from './helpers/postgres.js'
import { randomAddress } from './helpers/x402.js'
import { listen } from './helpers/x402-buyers.js'

/**
 * The dashboard's approvals across two API replicas on one PostgreSQL (issue 41 items 3 and 7):
 * the agent's `parx pay --wait-approval` runs through replica A while its owner decides in the
 * dashboard served by replica B (the session in the shared store). Approved on B, the pay on A
 * completes once, and a second decision on A is refused; an approve on A racing a deny on B is won
 * by exactly one, and the pay follows the winner (paid once, or never signed). The pays go through
 * A only: two in-process local daemons each run their own embedded chain (test/hosted-freeze.test.ts
 * says why), and B only reads and writes the store here. PostgreSQL only: the `postgres` project.
 */
let a: TestDaemon
let b: TestDaemon
let seller: { url: string; close(): Promise<void> }
const payTo = randomAddress()
const PRICE = 10n ** 16n // 0.01 PUSD
const paymentsSeen: string[] = []

beforeAll(async () => {
  const url = await (await testPostgres()).createDatabase()
  a = await startTestDaemon({ flags: { store: { url } } })
  b = await startTestDaemon({
    flags: { store: { url }, keys: { platformWalletPrevious: [a.services.keys.platformWallet!] } },
  })
  const app = express()
  app.use((req, _res, next) => {
    if (req.header('payment-signature') || req.header('x-payment')) paymentsSeen.push(req.path)
    next()
  })
  app.use(
    paymentGate({
      facilitator: { url: a.urls.facilitator },
      routes: { 'GET /report': { prices: [{ network: 'local-base', asset: 'PUSD', amount: String(PRICE), payTo }] } },
    }),
  )
  app.get('/report', (_req, res) => void res.json({ data: 'the report' }))
  seller = await listen(app)
}, 180_000)
afterAll(async () => {
  await seller?.close()
  await Promise.all([a?.close(), b?.close()])
})

const bal = (owner: Address) =>
  a.services.base.client.readContract({
    address: a.services.base.tokens.PUSD!.address,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [owner],
  })

describe('dashboard approvals across replicas', () => {
  it('decided in the dashboard on B, the pay waiting on A completes once; an approve on A racing a deny on B: one wins, and the pay follows it', async () => {
    const onB = dashboardClient(b.urls.api)
    await onB.signIn(privateKeyToAccount(generatePrivateKey()), b.services.base.chainId)
    // The same signed-in session, served by A from the shared store.
    const onA = dashboardClient(a.urls.api)
    onA.cookie = onB.cookie
    const call = async (c: typeof onA, m: 'GET' | 'POST', p: string, body?: unknown) =>
      c.call(m, p, body, { csrf: onB.csrf })
    const agent = (await call(onA, 'POST', '/agents', { name: 'replicated', network: 'local-base' })).body
    const agentKey = (await call(onA, 'POST', `/agents/${agent.id}/keys`, {})).body.agentKey as string
    expect((await call(onB, 'POST', `/agents/${agent.id}/limits`, { approveAboveUsd: '0.005' })).status).toBe(200)
    await a.call('/api/local/faucet', { body: { network: 'local-base', to: agent.wallet, token: 'PUSD', amount: '1' } })
    const pay = (args: string[] = []) =>
      runParx(a.urls.api, ['--output', 'json', 'pay', `${seller.url}/report`, '--yes', ...args], {
        PARX_AGENT_KEY: agentKey,
        PARX_AGENT_ID: agent.id,
        PARX_AGENTS_URL: a.urls.platform,
      })
    const pendingOnB = async (): Promise<string> => {
      let id: string | undefined
      for (let i = 0; i < 600 && !id; i++) {
        id = (await call(onB, 'GET', '/approvals')).body.pending[0]?.id
        if (!id) await new Promise((r) => setTimeout(r, 100))
      }
      expect(id).toBeDefined()
      return id!
    }
    const spends = async () =>
      (await a.services.store.db.selectFrom('platform_spends').select('id').where('agent_id', '=', agent.id).execute())
        .length

    const waiting = pay(['--wait-approval', '120'])
    const first = await pendingOnB()
    expect(paymentsSeen).toEqual([])
    const approved = await call(onB, 'POST', `/approvals/${first}/approve`)
    expect(approved.status).toBe(200)
    const paid = await waiting
    expect(paid.code, paid.err).toBe(0)
    expect(paymentsSeen).toEqual(['/report'])
    expect(await bal(payTo)).toBe(PRICE)
    const late = await call(onA, 'POST', `/approvals/${first}/deny`)
    expect(late.status).toBe(409)
    expect(late.body).toMatchObject({ code: 'APPROVAL_NOT_PENDING', state: 'consumed' })

    const raced = pay(['--wait-approval', '120'])
    const second = await pendingOnB()
    const [yes, no] = await Promise.all([
      call(onA, 'POST', `/approvals/${second}/approve`),
      call(onB, 'POST', `/approvals/${second}/deny`),
    ])
    expect([yes.status, no.status].sort()).toEqual([200, 409])
    const outcome = await raced
    if (yes.status === 200) {
      expect(outcome.code, outcome.err).toBe(0)
      expect(paymentsSeen).toEqual(['/report', '/report'])
      expect(await bal(payTo)).toBe(2n * PRICE)
      expect(await spends()).toBe(2)
    } else {
      expect(outcome.code).toBe(3)
      expect(JSON.parse(outcome.out || outcome.err)).toMatchObject({ code: 'APPROVAL_NOT_USABLE', state: 'denied' })
      expect(paymentsSeen).toEqual(['/report'])
      expect(await bal(payTo)).toBe(PRICE)
      expect(await spends()).toBe(1)
    }
    const listed = (await call(onA, 'GET', '/approvals')).body
    expect(listed.pending).toEqual([])
    expect(listed.decided.map((x: any) => [x.id, x.state])).toEqual([
      [second, yes.status === 200 ? 'consumed' : 'denied'],
      [first, 'consumed'],
    ])
  }, 240_000)
})
