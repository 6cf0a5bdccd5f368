import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import express from 'express'
import type { Address } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPlatformClient, type PlatformClient } from '../src/sdk/platform/client.js'
import { memoryHoldStore } from '../src/sdk/x402/seller/auth-capture/store.js'
import { paymentGate } from '../src/sdk/x402/seller/middleware.js'
import { settleAmount } from '../src/sdk/x402/seller/usage.js'
import { until } from './helpers/api-calls.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { localBase } from './helpers/x402.js'
import { listen } from './helpers/x402-buyers.js'

/**
 * Issue 40 item 4: an agent pays x402 auth-capture with the compiled `parx pay` against a real
 * daemon (SQLite and PostgreSQL): an outside seller (our SDK gate, exact beside auth-capture, its
 * handler reporting what it used) and platform endpoints created with `authCapture` through the
 * API. auth-capture is taken by default; while the handler runs the maximum is held and counts
 * against the agent's limits; a capture for less gives the rest back to the limits at once; a
 * failing upstream is voided (the agent whole, its limits restored); a refund by the seller comes
 * back to the limits through the leader's read of the escrow; every balance on chain to the unit.
 */
const PRICE = 1000n // 0.001 USDC
let d: TestDaemon
let seller: PlatformClient
let sellerKey: string
let buyer: PlatformClient
let buyerId: string
let buyerKey: string
let buyerWallet: Address
let payee: { id: string; wallet: Address }
let upstream: Server
let upstreamUrl: string
let outside: { url: string; close(): Promise<void> }
const outsidePayTo = privateKeyToAccount(generatePrivateKey()).address
const seenLimits: string[] = []
const tmp = mkdtempSync(join(tmpdir(), 'parx-pay-ac-'))

beforeAll(async () => {
  // The leader reads agents' holds every half second (default 5 s): a refund or a reclaim comes back to the limits at
  // once. The bundler starts after the ready line, as it does for a user (the test daemons' default defers it to the
  // first gasless send): the reclaim, a user operation of the agent's account, then does not wait for it to start.
  d = await startTestDaemon({
    env: { PARX_PAY_HOLD_REFRESH_EVERY_SECONDS: '0.5' },
    flags: { bundler: { prestart: true } },
  })
  upstream = createServer((req, res) => {
    if (req.url === '/fail') return void res.writeHead(500).end('upstream broke')
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ served: req.url }))
  })
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r))
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`
  const op = createPlatformClient({ url: d.urls.platform, operatorToken: d.services.keys.operatorToken })
  sellerKey = (await op.createUser({ body: { name: 'seller' } })).userKey
  seller = createPlatformClient({ url: d.urls.platform, userKey: sellerKey })
  const p = await seller.createAgent({ body: { name: 'payee', network: 'local-base' } })
  payee = { id: p.id, wallet: p.wallet as Address }
  buyer = createPlatformClient({
    url: d.urls.platform,
    userKey: (await op.createUser({ body: { name: 'buyer' } })).userKey,
  })
  const a = await buyer.createAgent({ body: { name: 'buyer', network: 'local-base' } })
  buyerId = a.id
  buyerWallet = a.wallet as Address
  buyerKey = (await buyer.createAgentKey({ params: { id: a.id }, body: {} })).agentKey
  await d.call('/api/local/faucet', { body: { network: 'local-base', to: buyerWallet, token: 'USDC', amount: '1' } })

  // An outside seller: our SDK gate through the daemon's facilitator, offering exact and auth-capture.
  const apiKey = (
    await d.call<{ key: string }>('/api/operator/keys', {
      body: { name: 'outside', owner: outsidePayTo },
      headers: d.operatorHeaders(),
    })
  ).key
  const price = { network: 'local-base', asset: 'USDC', amount: String(PRICE), payTo: outsidePayTo }
  const app = express()
  app.use(
    paymentGate({
      facilitator: { url: d.urls.facilitator, apiKey },
      routes: {
        'GET /metered': { prices: [price, { ...price, scheme: 'auth-capture' as const }] },
        // A seller that holds and never captures: deferred, with a capture deadline near the shortest the
        // gate allows (30 + 60 s from the offer), plus 10 s of slack: the gate refuses a deadline that got
        // nearer than that by the time the payment arrives (a busy machine took over a second).
        'GET /vanishes': {
          prices: [
            {
              ...price,
              scheme: 'auth-capture' as const,
              captureMode: 'deferred' as const,
              maxTimeoutSeconds: 30,
              captureDeadlineSeconds: 100,
            },
          ],
        },
      },
      holds: { store: memoryHoldStore() },
    }),
  )
  app.get('/metered', async (_req, res) => {
    // While the handler serves, the hold is placed: the agent's limits show the maximum.
    seenLimits.push((await buyer.getLimits({ params: { id: buyerId } })).spentTodayUsd)
    settleAmount(res, '400')
    res.json({ used: 400 })
  })
  app.get('/vanishes', (_req, res) => void res.json({ held: true }))
  outside = await listen(app)
  await buyer.setLimits({ params: { id: buyerId }, body: { dailyUsd: '1' } })
}, 120_000)
afterAll(async () => {
  await outside?.close()
  await new Promise((r) => upstream?.close(r))
  await d?.close()
  rmSync(tmp, { recursive: true, force: true })
})

type Run = { code: number | null; stdout: string; stderr: string }
/** The compiled `parx` as a script runs it: no terminal, the agent's key and id in the environment. */
function parx(args: string[], as: 'agent' | 'seller' = 'agent'): Promise<Run> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PARX_AGENTS_URL: d.urls.platform,
    PARX_API_URL: d.urls.api,
    PARX_CONFIG_DIR: join(tmp, 'config'),
    PARX_RUNTIME_DIR: join(tmp, 'run'),
    NO_COLOR: '1',
    ...(as === 'agent'
      ? { PARX_AGENT_KEY: buyerKey, PARX_AGENT_ID: buyerId, PARX_USER_KEY: '' }
      : { PARX_AGENT_KEY: '', PARX_AGENT_ID: '', PARX_USER_KEY: sellerKey }),
  }
  const child = spawn(process.execPath, ['bin/parx.js', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (b: Buffer) => (stdout += b))
  child.stderr.on('data', (b: Buffer) => (stderr += b))
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })))
}
const usdc = (a: Address) => localBase(d).balance('USDC', a)
const spent = async () => (await buyer.getLimits({ params: { id: buyerId } })).spentTodayUsd
const endpoint = (path: string) =>
  seller.createEndpoint({
    body: {
      upstreamUrl: `${upstreamUrl}${path}`,
      price: '0.001',
      network: 'local-base',
      token: 'USDC',
      payTo: payee.id,
      authCapture: true,
    },
  })

describe('an agent pays auth-capture (compiled parx pay, real daemon)', () => {
  it('holds the maximum while the handler runs, captures for less, and gives the rest back to the limits', async () => {
    const b0 = await usdc(buyerWallet)
    const r = await parx(['pay', `${outside.url}/metered`, '--output', 'json'])
    expect(r.code, r.stderr + r.stdout).toBe(0)
    const a = JSON.parse(r.stdout)
    expect(a).toMatchObject({
      status: 200,
      receipt: {
        protocol: 'x402-v2',
        amount: '0.001',
        token: 'USDC',
        payTo: outsidePayTo,
        hold: { held: '0.001', captured: '0.0004', voided: '0.0006' },
      },
    })
    expect(JSON.parse(a.body)).toEqual({ used: 400 })
    // During the handler the whole maximum was held against the limits; now only the capture counts.
    expect(seenLimits).toEqual(['0.001'])
    expect(await spent()).toBe('0.0004')
    expect(await usdc(buyerWallet)).toBe(b0 - 400n)
    expect(await usdc(outsidePayTo)).toBe(400n)
    // The agent never held ETH: the facilitator paid the gas.
    expect(await localBase(d).chain.client.getBalance({ address: buyerWallet })).toBe(0n)

    // The text output says what was held and what was captured.
    const t = await parx(['pay', `${outside.url}/metered`])
    expect(t.code, t.stderr).toBe(0)
    expect(t.stderr).toMatch(/held 0\.001 USDC \(auth-capture 0x[0-9a-f]{64}\), captured 0\.0004, voided 0\.0006/)
    expect(await spent()).toBe('0.0008')
    expect(await usdc(buyerWallet)).toBe(b0 - 800n)
    expect(await usdc(outsidePayTo)).toBe(800n)
  })

  it('a platform endpoint created with authCapture: captured in full, the payee paid to the unit', async () => {
    const e = await endpoint('/full')
    const b0 = await usdc(buyerWallet)
    const before = Number(await spent())
    const r = await parx(['pay', e.url, '--output', 'json'])
    expect(r.code, r.stderr + r.stdout).toBe(0)
    expect(JSON.parse(r.stdout)).toMatchObject({
      status: 200,
      receipt: { payTo: payee.wallet, hold: { held: '0.001', captured: '0.001', voided: '0' } },
    })
    expect(Number(await spent())).toBeCloseTo(before + 0.001, 9)
    expect(await usdc(buyerWallet)).toBe(b0 - PRICE)
    expect(await usdc(payee.wallet)).toBe(PRICE)
  })

  it('a failing upstream is voided: the agent whole, its limits restored', async () => {
    const e = await endpoint('/fail')
    const b0 = await usdc(buyerWallet)
    const before = await spent()
    const r = await parx(['pay', e.url, '--output', 'json'])
    expect(r.code, r.stderr + r.stdout).toBe(0)
    const a = JSON.parse(r.stdout)
    expect(a).toMatchObject({ status: 500, receipt: { hold: { held: '0.001', captured: '0', voided: '0.001' } } })
    expect(await spent()).toBe(before)
    expect(await usdc(buyerWallet)).toBe(b0)
    expect(await usdc(payee.wallet)).toBe(PRICE)
  })

  it('exact when asked (--scheme exact): the price moves once, nothing held', async () => {
    const e = await endpoint('/full')
    const b0 = await usdc(buyerWallet)
    const before = Number(await spent())
    const r = await parx(['pay', e.url, '--scheme', 'exact', '--output', 'json'])
    expect(r.code, r.stderr + r.stdout).toBe(0)
    const a = JSON.parse(r.stdout)
    expect(a.receipt.hold).toBeUndefined()
    expect(a.receipt).toMatchObject({ amount: '0.001' })
    expect(Number(await spent())).toBeCloseTo(before + 0.001, 9)
    expect(await usdc(buyerWallet)).toBe(b0 - PRICE)
    expect(await usdc(payee.wallet)).toBe(2n * PRICE)
  })

  it("a seller's refund (parx endpoint refund) comes back to the agent's limits once the leader reads the escrow", async () => {
    const e = await endpoint('/full')
    const b0 = await usdc(buyerWallet)
    const p0 = await usdc(payee.wallet)
    const r = await parx(['pay', e.url, '--output', 'json'])
    expect(r.code, r.stderr + r.stdout).toBe(0)
    const receipt = JSON.parse(r.stdout).receipt
    expect(receipt.hold).toMatchObject({ held: '0.001', captured: '0.001', voided: '0' })
    const afterPay = await spent()
    expect(await usdc(buyerWallet)).toBe(b0 - PRICE)
    const refunded = await parx(
      ['endpoint', 'refund', receipt.hold.id, '--amount', '0.0007', '--output', 'json'],
      'seller',
    )
    expect(refunded.code, refunded.stderr + refunded.stdout).toBe(0)
    expect(await usdc(buyerWallet)).toBe(b0 - 300n)
    expect(await usdc(payee.wallet)).toBe(p0 + 300n)
    const back = await until(spent, (s) => Number(s) < Number(afterPay), 'the refund back in the limits')
    expect(Number(afterPay) - Number(back)).toBeCloseTo(0.0007, 9)

    // parx payments: per payment the hold, what was captured, voided and refunded.
    const listed = await parx(['payments', '--kind', 'pay', '--output', 'json'])
    expect(listed.code, listed.stderr).toBe(0)
    const rows = JSON.parse(listed.stdout).payments as {
      amount: string
      amountUsd: string
      state: string
      hold?: Record<string, string>
    }[]
    expect(rows.find((x) => x.hold?.id === receipt.hold.id)).toMatchObject({
      state: 'confirmed',
      amount: '0.0003',
      amountUsd: '0.0003',
      hold: {
        status: 'settled',
        held: '0.001',
        holding: '0',
        captured: '0.001',
        voided: '0',
        refunded: '0.0007',
        reclaimed: '0',
      },
    })
    expect(rows.filter((x) => x.hold?.captured === '0.0004')).toEqual([
      expect.objectContaining({
        amount: '0.0004',
        hold: expect.objectContaining({ held: '0.001', voided: '0.0006', refunded: '0' }),
      }),
      expect.objectContaining({
        amount: '0.0004',
        hold: expect.objectContaining({ held: '0.001', voided: '0.0006', refunded: '0' }),
      }),
    ])
    expect(rows.find((x) => x.hold?.voided === '0.001')).toMatchObject({
      state: 'released',
      hold: { captured: '0', voided: '0.001' },
    })
    expect(rows.filter((x) => !x.hold)).toHaveLength(1) // the exact one
    const text = await parx(['payments', '--kind', 'pay'])
    expect(text.stdout).toContain('hold 0.001 USDC: captured 0.001, refunded 0.0007')
    expect(text.stdout).toContain('hold 0.001 USDC: captured 0, voided 0.001')
    // The CSV export: the hold's columns after the others, empty for the exact pay.
    const csv = (await parx(['payments', '--kind', 'pay', '-o', 'csv'])).stdout.trimEnd().split('\n')
    expect(csv[0]).toBe(
      'createdAt,kind,state,amount,token,amountUsd,host,recipient,tx,userOp,reason,id,holdId,held,holding,captured,voided,refunded,reclaimed',
    )
    expect(csv.find((l) => l.includes(receipt.hold.id))).toMatch(
      new RegExp(`,${receipt.hold.id},0\\.001,0,0\\.001,0,0\\.0007,0$`),
    )
    expect(csv.filter((l) => l.endsWith(',,,,,,,'))).toHaveLength(1) // the exact one

    // parx report: the window's holds per token (two metered, one full, one voided, one refunded).
    const report = JSON.parse((await parx(['report', '--output', 'json'])).stdout)
    expect(report.holds).toEqual([
      {
        token: 'USDC',
        count: 5,
        held: '0.005',
        holding: '0',
        captured: '0.0028',
        voided: '0.0022',
        refunded: '0.0007',
        reclaimed: '0',
      },
    ])
    expect((await parx(['report'])).stdout).toMatch(
      /auth-capture holds\n\s+USDC\s+5 holds\s+held 0\.005 USDC: captured 0\.0028, voided 0\.0022, refunded 0\.0007/,
    )
    const reportCsv = (await parx(['report', '-o', 'csv'])).stdout
    expect(reportCsv).toContain('hold-captured,USDC,5,,,0.0028')
    expect(reportCsv).toContain('hold-refunded,USDC,5,,,0.0007')
  })

  it('the MCP pay tool takes scheme (exact or auth-capture), and MCP history shows each hold', async () => {
    const e = await endpoint('/full')
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [fileURLToPath(new URL('../bin/parx.js', import.meta.url)), 'mcp'],
      env: {
        PATH: process.env.PATH ?? '',
        HOME: tmp,
        PARX_CONFIG_DIR: join(tmp, 'mcp-config'),
        PARX_RUNTIME_DIR: join(tmp, 'mcp-run'),
        PARX_AGENTS_URL: d.urls.platform,
        PARX_AGENT_KEY: buyerKey,
        PARX_AGENT_ID: buyerId,
      },
      stderr: 'pipe',
    })
    const client = new Client({ name: 'parx-test', version: '0.0.0' })
    await client.connect(transport)
    const text = (r: Awaited<ReturnType<Client['callTool']>>) =>
      JSON.parse((r.content as { type: string; text: string }[])[0]!.text)
    try {
      const b0 = await usdc(buyerWallet)
      const exact = await client.callTool({ name: 'pay', arguments: { url: e.url, scheme: 'exact' } })
      expect(exact.isError, JSON.stringify(exact.content)).toBeFalsy()
      expect(text(exact)).toMatchObject({ status: 200, receipt: { amount: '0.001', token: 'USDC' } })
      expect(text(exact).receipt.hold).toBeUndefined()
      const held = await client.callTool({ name: 'pay', arguments: { url: e.url, scheme: 'auth-capture' } })
      expect(held.isError, JSON.stringify(held.content)).toBeFalsy()
      expect(text(held)).toMatchObject({
        status: 200,
        receipt: { hold: { held: '0.001', captured: '0.001', voided: '0' } },
      })
      expect(await usdc(buyerWallet)).toBe(b0 - 2n * PRICE)
      expect((await client.callTool({ name: 'pay', arguments: { url: e.url, scheme: 'upto' } })).isError).toBe(true)
      expect(await usdc(buyerWallet)).toBe(b0 - 2n * PRICE)

      const history = text(await client.callTool({ name: 'history', arguments: { kind: 'pay', limit: 2 } }))
      expect(history.payments[0]).toMatchObject({
        amount: '0.001',
        hold: {
          id: text(held).receipt.hold.id,
          held: '0.001',
          captured: '0.001',
          voided: '0',
          refunded: '0',
          reclaimed: '0',
        },
      })
      expect(history.payments[1].hold).toBeUndefined()
      const report = text(await client.callTool({ name: 'history', arguments: { report: true } }))
      expect(report.holds).toEqual([expect.objectContaining({ token: 'USDC', count: 6, held: '0.006' })])
    } finally {
      await client.close()
    }
  })

  it('a hold its seller never captures is reclaimed by the leader from the agent account after the capture deadline, and the limits released', async () => {
    const b0 = await usdc(buyerWallet)
    const before = Number(await spent())
    const r = await parx(['pay', `${outside.url}/vanishes`, '--output', 'json'])
    expect(r.code, r.stderr + r.stdout).toBe(0)
    const hold = JSON.parse(r.stdout).receipt.hold
    expect(hold).toMatchObject({ held: '0.001', captured: '0', voided: '0' })
    expect(await usdc(buyerWallet)).toBe(b0 - PRICE)
    expect(Number(await spent())).toBeCloseTo(before + 0.001, 9)
    // Past the capture deadline on chain (anvil's clock moved, nothing slept): the leader reclaims.
    const client = d.services.base.client
    await client.request({ method: 'evm_increaseTime' as never, params: [120] as never })
    await client.request({ method: 'evm_mine' as never, params: [] as never })
    await until(
      () => usdc(buyerWallet),
      (b) => b === b0,
      'the reclaim on chain',
      120_000,
    )
    const back = await until(spent, (s) => Number(s) <= before + 1e-9, 'the reclaimed hold out of the limits')
    expect(Number(back)).toBeCloseTo(before, 9)
    const listed = JSON.parse(
      (await parx(['payments', '--kind', 'pay', '--limit', '1', '--output', 'json'])).stdout,
    ).payments
    expect(listed[0]).toMatchObject({
      state: 'released',
      hold: { id: hold.id, held: '0.001', holding: '0', captured: '0', reclaimed: '0.001' },
    })
    expect(await usdc(outsidePayTo)).toBe(800n)
    // Gasless: the agent account's user operation was sponsored.
    expect(await client.getBalance({ address: buyerWallet })).toBe(0n)
  }, 180_000)
})
