import { createHmac, timingSafeEqual } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import express from 'express'
import { type Address, erc20Abi } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPlatformClient, type PlatformClient } from '../src/sdk/platform/client.js'
import { paymentGate } from '../src/sdk/x402/seller/middleware.js'
import { runParx } from './helpers/cli.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { randomAddress } from './helpers/x402.js'
import { listen } from './helpers/x402-buyers.js'

/**
 * Issue 41 item 3 against a real daemon (SQLite and PostgreSQL: storeSensitive), through the CLI:
 * an agent's pay above its `approveAboveUsd` answers APPROVAL_REQUIRED (exit 11) with nothing
 * signed (the seller saw no payment header, no spend row, no token moved); `parx approvals` lists
 * it, `parx approvals approve` lets the agent's `parx pay --wait-approval` complete it, once; a
 * denied and an expired approval are never signed; a send is held the same way. The compiled
 * `parx mcp` (bin/parx.js, over stdio) answers APPROVAL_REQUIRED with the id, lists the agent's
 * pending approvals, and pays with the approval once approved; `parx send` and the MCP send tool
 * are held and sent the same way, and a dry run says when an approval would be asked.
 */
let d: TestDaemon
let user: PlatformClient
let userKey: string
let agentId: string
let agentKey: string
let wallet: Address
let seller: { url: string; close(): Promise<void> }
const payTo = randomAddress()
const to = randomAddress()
const PRICE = 10n ** 16n // 0.01 PUSD
const paymentsSeen: string[] = []

beforeAll(async () => {
  d = await startTestDaemon()
  const app = express()
  app.use((req, _res, next) => {
    if (req.header('payment-signature') || req.header('x-payment')) paymentsSeen.push(req.path)
    next()
  })
  app.use(
    paymentGate({
      facilitator: { url: d.urls.facilitator },
      routes: { 'GET /report': { prices: [{ network: 'local-base', asset: 'PUSD', amount: String(PRICE), payTo }] } },
    }),
  )
  app.get('/report', (_req, res) => void res.json({ data: 'the report' }))
  seller = await listen(app)
  const op = createPlatformClient({ url: d.urls.platform, operatorToken: d.services.keys.operatorToken })
  userKey = (await op.createUser({ body: { name: 'owner' } })).userKey
  user = createPlatformClient({ url: d.urls.platform, userKey })
  const a = await user.createAgent({ body: { name: 'buyer', network: 'local-base' } })
  agentId = a.id
  wallet = a.wallet as Address
  agentKey = (await user.createAgentKey({ params: { id: a.id }, body: {} })).agentKey
  await d.call('/api/local/faucet', { body: { network: 'local-base', to: wallet, token: 'PUSD', amount: '10' } })
}, 120_000)
afterAll(async () => {
  await seller?.close()
  await d?.close()
})

const bal = (owner: Address) =>
  d.services.base.client.readContract({
    address: d.services.base.tokens.PUSD!.address,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [owner],
  })
const asUser = (args: string[]) =>
  runParx(d.urls.api, ['--output', 'json', ...args], { PARX_USER_KEY: userKey, PARX_AGENTS_URL: d.urls.platform })
const asAgent = (args: string[]) =>
  runParx(d.urls.api, ['--output', 'json', ...args], {
    PARX_AGENT_KEY: agentKey,
    PARX_AGENT_ID: agentId,
    PARX_AGENTS_URL: d.urls.platform,
  })
const json = (r: { out: string; err: string }) => JSON.parse(r.out || r.err)
const errorOf = (r: { out: string; err: string }) => json(r) as { code: string; approvalId?: string }
const spendRows = async () => (await user.listPayments({ params: { id: agentId } })).payments.length
const payUrl = () => `${seller.url}/report`
/** Ages an approval past its expiry in the store, as the clock would (no test waits on time). */
const age = (id: string) =>
  d.services.store.db
    .updateTable('platform_approvals')
    .set({ expires_at: Date.now() - 1 })
    .where('id', '=', id)
    .execute()

describe('approval above a threshold', () => {
  it('held with nothing signed; listed and approved in the CLI; pay --wait-approval completes it once; a second use is refused', async () => {
    const set = await asUser(['agent', 'limits', '--agent', agentId, '--approve-above', '0.005'])
    expect(set.code, set.err).toBe(0)
    expect(json(set)).toMatchObject({ approveAboveUsd: '0.005' })
    const before = { wallet: await bal(wallet), seller: await bal(payTo) }

    const held = await asAgent(['pay', payUrl(), '--yes'])
    expect(held.code, held.err).toBe(11)
    const first = errorOf(held)
    expect(first).toMatchObject({ code: 'APPROVAL_REQUIRED' })
    const pending = (await user.listApprovals({ query: {} })).approvals
    expect(pending).toHaveLength(1)
    expect(pending[0]).toMatchObject({
      agentId,
      kind: 'pay',
      target: payUrl(),
      method: 'GET',
      amount: '0.01',
      token: 'PUSD',
      amountUsd: '0.01',
      state: 'pending',
    })
    expect(paymentsSeen).toEqual([])
    expect(await spendRows()).toBe(0)

    // The agent waits; the owner sees the second hold and approves it in the CLI.
    const waiting = asAgent(['pay', payUrl(), '--yes', '--wait-approval', '120'])
    let second: string | undefined
    for (let i = 0; i < 600 && !second; i++) {
      second = (await user.listApprovals({ query: {} })).approvals.find((a) => a.id !== pending[0]!.id)?.id
      if (!second) await new Promise((r) => setTimeout(r, 100))
    }
    expect(second).toBeDefined()
    const listed = await asUser(['approvals'])
    expect(listed.code, listed.err).toBe(0)
    expect(
      json(listed)
        .approvals.map((a: { id: string }) => a.id)
        .sort(),
    ).toEqual([pending[0]!.id, second].sort())
    expect(paymentsSeen).toEqual([])
    const approved = await asUser(['approvals', 'approve', second!])
    expect(approved.code, approved.err).toBe(0)
    expect(json(approved)).toMatchObject({ id: second, state: 'approved' })

    const paid = await waiting
    expect(paid.code, paid.err).toBe(0)
    expect(json(paid)).toMatchObject({ dryRun: false, status: 200, receipt: { amount: '0.01', token: 'PUSD', payTo } })
    expect(paymentsSeen).toEqual(['/report'])
    expect(await bal(payTo)).toBe(before.seller + PRICE)
    expect((await user.showApproval({ params: { approvalId: second! } })).state).toBe('consumed')

    // The same approval again: refused before anything is signed.
    const again = await asAgent(['pay', payUrl(), '--yes', '--approval-id', second!])
    expect(again.code).toBe(3)
    expect(errorOf(again)).toMatchObject({ code: 'APPROVAL_NOT_USABLE' })
    expect(paymentsSeen).toEqual(['/report'])

    // The first one denied: never signed.
    const denied = await asUser(['approvals', 'deny', pending[0]!.id])
    expect(denied.code, denied.err).toBe(0)
    const afterDeny = await asAgent(['pay', payUrl(), '--yes', '--approval-id', pending[0]!.id])
    expect(errorOf(afterDeny)).toMatchObject({ code: 'APPROVAL_NOT_USABLE' })
    expect(paymentsSeen).toEqual(['/report'])
    expect(await bal(wallet)).toBe(before.wallet - PRICE)
    expect(await spendRows()).toBe(1)
    expect((await user.listApprovals({ query: {} })).approvals).toEqual([])
  }, 240_000)

  it('an expired approval can be neither approved nor used; one approved and then expired is never signed', async () => {
    await user.setLimits({ params: { id: agentId }, body: { approveAboveUsd: '0.005' } })
    const seen = paymentsSeen.length
    const held = await asAgent(['pay', payUrl(), '--yes'])
    const id = errorOf(held).approvalId as string
    await age(id)
    const late = await asUser(['approvals', 'approve', id])
    expect(late.code).toBe(3)
    expect(errorOf(late)).toMatchObject({ code: 'APPROVAL_NOT_PENDING' })
    expect((await user.showApproval({ params: { approvalId: id } })).state).toBe('expired')

    const other = errorOf(await asAgent(['pay', payUrl(), '--yes'])).approvalId as string
    expect((await asUser(['approvals', 'approve', other])).code).toBe(0)
    await age(other)
    const used = await asAgent(['pay', payUrl(), '--yes', '--approval-id', other])
    expect(errorOf(used)).toMatchObject({ code: 'APPROVAL_NOT_USABLE' })
    expect(paymentsSeen.length).toBe(seen)
  }, 120_000)

  it('a send above the threshold is held too, and sent once after approval', async () => {
    await user.setLimits({ params: { id: agentId }, body: { approveAboveUsd: '0.5' } })
    const send = (body: Record<string, unknown>) =>
      d.raw(`/api/agents/${agentId}/send`, {
        method: 'POST',
        headers: { 'x-agent-key': agentKey, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    const before = await bal(to)
    const held = await send({ to, amount: '1', token: 'PUSD' })
    expect(held.status).toBe(403)
    expect(held.body).toMatchObject({ code: 'APPROVAL_REQUIRED', amount: '1', token: 'PUSD' })
    const approvalId = held.body.approvalId as string
    expect(await bal(to)).toBe(before)
    // Still pending: the same send with it is held again; another send (another amount) cannot use it.
    expect((await send({ to, amount: '1', token: 'PUSD', approvalId })).body.code).toBe('APPROVAL_REQUIRED')
    await user.approveApproval({ params: { approvalId } })
    expect((await send({ to, amount: '0.9', token: 'PUSD', approvalId })).body.code).toBe('APPROVAL_NOT_USABLE')
    const sent = await send({ to, amount: '1', token: 'PUSD', approvalId })
    expect(sent.status, JSON.stringify(sent.body)).toBe(200)
    expect(await bal(to)).toBe(before + 10n ** 18n)
    expect((await send({ to, amount: '1', token: 'PUSD', approvalId })).body.code).toBe('APPROVAL_NOT_USABLE')
    expect(await bal(to)).toBe(before + 10n ** 18n)
    // At or under the threshold: no approval asked.
    expect((await send({ to, amount: '0.5', token: 'PUSD' })).status).toBe(200)
  }, 120_000)
})

describe('send and dry runs as pay has them (issue 41 item 7)', () => {
  it('parx send above the threshold exits 11 with the id; --wait-approval sends once approved; --approval-id cannot be used twice', async () => {
    await user.setLimits({ params: { id: agentId }, body: { approveAboveUsd: '0.5' } })
    const before = await bal(to)
    const args = ['send', '--to', to, '--amount', '1', '--token', 'PUSD']
    const held = await asAgent(args)
    expect(held.code, held.err).toBe(11)
    expect(errorOf(held)).toMatchObject({ code: 'APPROVAL_REQUIRED', approvalId: expect.any(String) })
    expect(await bal(to)).toBe(before)

    // The agent waits; the owner approves the new hold in the CLI; the send goes once.
    const waiting = asAgent([...args, '--wait-approval', '120'])
    let second: string | undefined
    for (let i = 0; i < 600 && !second; i++) {
      second = (await user.listApprovals({ query: {} })).approvals.find(
        (a) => a.kind === 'send' && a.id !== errorOf(held).approvalId,
      )?.id
      if (!second) await new Promise((r) => setTimeout(r, 100))
    }
    expect(second).toBeDefined()
    expect(await bal(to)).toBe(before)
    expect((await asUser(['approvals', 'approve', second!])).code).toBe(0)
    const sent = await waiting
    expect(sent.code, sent.err).toBe(0)
    expect(json(sent)).toMatchObject({ to, amount: '1', token: 'PUSD', status: 'confirmed' })
    expect(await bal(to)).toBe(before + 10n ** 18n)

    // The first hold, approved: --approval-id sends it once; the same id again is refused, nothing moves.
    await user.approveApproval({ params: { approvalId: errorOf(held).approvalId! } })
    const other = await asAgent([
      'send',
      '--to',
      to,
      '--amount',
      '0.9',
      '--token',
      'PUSD',
      '--approval-id',
      errorOf(held).approvalId!,
    ])
    expect(errorOf(other)).toMatchObject({ code: 'APPROVAL_NOT_USABLE' })
    const withId = await asAgent([...args, '--approval-id', errorOf(held).approvalId!])
    expect(withId.code, withId.err).toBe(0)
    const again = await asAgent([...args, '--approval-id', errorOf(held).approvalId!])
    expect([again.code, errorOf(again).code]).toEqual([3, 'APPROVAL_NOT_USABLE'])
    expect(await bal(to)).toBe(before + 2n * 10n ** 18n)
  }, 240_000)

  it('pay --dry-run says an approval would be asked above the threshold (exit 0, nothing held or signed), and not at or under it', async () => {
    const seen = paymentsSeen.length
    const pendingBefore = (await user.listApprovals({ query: {} })).approvals.length
    await user.setLimits({ params: { id: agentId }, body: { approveAboveUsd: '0.005' } })
    const dry = await asAgent(['pay', payUrl(), '--dry-run'])
    expect(dry.code, dry.err).toBe(0)
    expect(json(dry)).toMatchObject({
      dryRun: true,
      wouldPay: false,
      approvalRequired: true,
      approveAboveUsd: '0.005',
      refusedBy: null,
      withinLimits: true,
      offer: { amount: '0.01', token: 'PUSD' },
    })
    const text = await runParx(d.urls.api, ['pay', payUrl(), '--dry-run'], {
      PARX_AGENT_KEY: agentKey,
      PARX_AGENT_ID: agentId,
      PARX_AGENTS_URL: d.urls.platform,
    })
    expect([text.code, text.out]).toEqual([
      0,
      expect.stringContaining(
        "would ask the owner's approval first (above this agent's approval threshold of 0.005 USD",
      ),
    ])
    // Over the threshold and over a limit: both are said, the refusal being what the approved pay would meet.
    await user.setLimits({ params: { id: agentId }, body: { perPaymentUsd: '0.008' } })
    const both = json(await asAgent(['pay', payUrl(), '--dry-run']))
    expect(both).toMatchObject({
      wouldPay: false,
      approvalRequired: true,
      refusedBy: { rule: 'perPayment', scope: 'agent' },
    })
    await user.setLimits({ params: { id: agentId }, body: { perPaymentUsd: null, approveAboveUsd: '0.01' } })
    expect(json(await asAgent(['pay', payUrl(), '--dry-run']))).toMatchObject({
      wouldPay: true,
      approvalRequired: false,
      approveAboveUsd: '0.01',
      refusedBy: null,
    })
    expect((await user.listApprovals({ query: {} })).approvals.length).toBe(pendingBefore)
    expect(paymentsSeen.length).toBe(seen)
  }, 120_000)
})

describe('approval.requested webhook', () => {
  it("is posted, signed, to the user's endpoint webhook once per approval, before the agent hears APPROVAL_REQUIRED", async () => {
    const got: { headers: Record<string, string | string[] | undefined>; body: string }[] = []
    const hooks = express()
    hooks.post(
      '/hook',
      express.text({ type: '*/*' }),
      (req, res) => void (got.push({ headers: req.headers, body: req.body as string }), res.status(200).end()),
    )
    const receiver = await listen(hooks)
    try {
      const e = await user.createEndpoint({
        body: {
          upstreamUrl: `${seller.url}/free`,
          price: '0.01',
          network: 'local-base',
          token: 'PUSD',
          payTo: agentId,
          webhookUrl: `${receiver.url}/hook`,
        },
      })
      await user.setLimits({ params: { id: agentId }, body: { approveAboveUsd: '0.005' } })
      const held = errorOf(await asAgent(['pay', payUrl(), '--yes']))
      expect(held.code).toBe('APPROVAL_REQUIRED')
      let delivery: (typeof got)[number] | undefined
      for (let i = 0; i < 300 && !delivery; i++) {
        delivery = got.find((g) => JSON.parse(g.body).type === 'approval.requested')
        if (!delivery) await new Promise((r) => setTimeout(r, 100))
      }
      expect(delivery).toBeDefined()
      const event = JSON.parse(delivery!.body)
      expect(event).toMatchObject({
        type: 'approval.requested',
        data: {
          id: held.approvalId,
          agentId,
          kind: 'pay',
          target: payUrl(),
          amount: '0.01',
          token: 'PUSD',
          state: 'pending',
        },
      })
      // The verification recipe of docs/platform-api.md "Settlement webhooks".
      const [id, ts] = [String(delivery!.headers['webhook-id']), String(delivery!.headers['webhook-timestamp'])]
      const expected = createHmac('sha256', Buffer.from(e.webhookSecret!.slice('whsec_'.length), 'base64'))
        .update(`${id}.${ts}.${delivery!.body}`)
        .digest()
      const sig = Buffer.from(String(delivery!.headers['webhook-signature']).split(',')[1] ?? '', 'base64')
      expect(sig.length === expected.length && timingSafeEqual(sig, expected)).toBe(true)
      await user.denyApproval({ params: { approvalId: held.approvalId! } })
    } finally {
      await receiver.close()
    }
  }, 120_000)
})

describe('approval through the compiled parx mcp', () => {
  const dir = mkdtempSync(join(tmpdir(), 'parx-approvals-mcp-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const text = (r: Awaited<ReturnType<Client['callTool']>>) =>
    JSON.parse((r.content as { type: string; text: string }[])[0]!.text)

  it('pay answers APPROVAL_REQUIRED with the id (nothing signed); the approvals tool lists it; pay with approvalId pays once approved', async () => {
    await user.setLimits({ params: { id: agentId }, body: { approveAboveUsd: '0.005' } })
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [fileURLToPath(new URL('../bin/parx.js', import.meta.url)), 'mcp'],
      env: {
        PATH: process.env.PATH ?? '',
        HOME: dir,
        PARX_CONFIG_DIR: join(dir, 'conf'),
        PARX_RUNTIME_DIR: join(dir, 'run'),
        PARX_AGENTS_URL: d.urls.platform,
        PARX_AGENT_KEY: agentKey,
        PARX_AGENT_ID: agentId,
      },
      stderr: 'pipe',
    })
    const client = new Client({ name: 'parx-test', version: '0.0.0' })
    await client.connect(transport)
    try {
      const seen = paymentsSeen.length
      const held = await client.callTool({ name: 'pay', arguments: { url: payUrl(), maxAmount: '0.01' } })
      expect(held.isError).toBe(true)
      const body = text(held)
      expect(body).toMatchObject({
        code: 'APPROVAL_REQUIRED',
        approvalId: expect.any(String),
        state: 'pending',
        amount: '0.01',
        token: 'PUSD',
      })
      expect(paymentsSeen.length).toBe(seen)
      const listed = text(await client.callTool({ name: 'approvals', arguments: {} }))
      expect(listed.approvals.map((a: { id: string }) => a.id)).toEqual([body.approvalId])
      await user.approveApproval({ params: { approvalId: body.approvalId } })
      const paid = await client.callTool({
        name: 'pay',
        arguments: { url: payUrl(), maxAmount: '0.01', approvalId: body.approvalId },
      })
      expect(paid.isError, JSON.stringify(paid.content)).toBeFalsy()
      expect(text(paid)).toMatchObject({ dryRun: false, status: 200, receipt: { amount: '0.01', token: 'PUSD' } })
      expect(paymentsSeen.length).toBe(seen + 1)
      expect(text(await client.callTool({ name: 'approvals', arguments: {} })).approvals).toEqual([])

      // A dry run says the approval would be asked, and holds nothing.
      const dry = await client.callTool({ name: 'pay', arguments: { url: payUrl(), dryRun: true } })
      expect(dry.isError).toBeFalsy()
      expect(text(dry)).toMatchObject({
        dryRun: true,
        wouldPay: false,
        approvalRequired: true,
        approveAboveUsd: '0.005',
        refusedBy: null,
      })
      expect(text(await client.callTool({ name: 'approvals', arguments: {} })).approvals).toEqual([])

      // send: held with the id, and sent once with approvalId after the user approves.
      await user.setLimits({ params: { id: agentId }, body: { approveAboveUsd: '0.5' } })
      const before = await bal(to)
      const sendArgs = { to, amount: '0.75', token: 'PUSD' }
      const heldSend = await client.callTool({ name: 'send', arguments: sendArgs })
      expect(heldSend.isError).toBe(true)
      const sendHold = text(heldSend)
      expect(sendHold).toMatchObject({
        code: 'APPROVAL_REQUIRED',
        approvalId: expect.any(String),
        amount: '0.75',
        token: 'PUSD',
      })
      await user.approveApproval({ params: { approvalId: sendHold.approvalId } })
      const sent = await client.callTool({ name: 'send', arguments: { ...sendArgs, approvalId: sendHold.approvalId } })
      expect(sent.isError, JSON.stringify(sent.content)).toBeFalsy()
      expect(text(sent)).toMatchObject({ to, amount: '0.75', status: 'confirmed' })
      const twice = await client.callTool({ name: 'send', arguments: { ...sendArgs, approvalId: sendHold.approvalId } })
      expect(text(twice)).toMatchObject({ code: 'APPROVAL_NOT_USABLE' })
      expect(await bal(to)).toBe(before + 75n * 10n ** 16n)
    } finally {
      await client.close()
    }
  }, 120_000)
})
