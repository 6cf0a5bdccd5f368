import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import express from 'express'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { networks } from '../src/networks/registry.js'
import { createPlatformClient, type PlatformClient } from '../src/sdk/platform/client.js'
import type { Manifest } from '../src/sdk/platform/manifest.js'
import type { SignedReceipt } from '../src/sdk/platform/receipts.js'
import { paymentGate } from '../src/sdk/x402/seller/middleware.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { testDialect } from './helpers/store.js'
import { randomAddress } from './helpers/x402.js'
import { listen } from './helpers/x402-buyers.js'

/**
 * Signed receipts end to end, on the store under test (SQLite, and PostgreSQL in the postgres
 * project): pays through an x402 seller (one that adds its own offer-receipt to its answer) and
 * through a parx paid endpoint with the compiled `parx pay` get a receipt signed by the key the
 * manifest publishes; `parx payments --receipts` exports them; `parx receipt verify` passes them
 * offline and fails (exit 10, RECEIPT_INVALID) once any field is changed.
 */
let d: TestDaemon
let user: PlatformClient
let agentId = ''
let agentKey = ''
let userKey = ''
let wallet = ''
let seller: { url: string; close(): Promise<void> }
let endpointUrl = ''
const payTo = randomAddress()
const tmp = mkdtempSync(join(tmpdir(), 'parx-receipts-'))
const bin = process.env.PARX_TEST_BIN ?? 'bin/parx.js'
const sellerReceipt = {
  format: 'eip712',
  payload: {
    version: 1,
    network: 'eip155:31337',
    resourceUrl: 'http://seller/signed',
    payer: '0x0',
    issuedAt: 1,
    transaction: '',
  },
  signature: `0x${'11'.repeat(65)}`,
}

beforeAll(async () => {
  d = await startTestDaemon()
  const op = createPlatformClient({ url: d.urls.platform, operatorToken: d.services.keys.operatorToken })
  ;({ userKey } = await op.createUser({ body: { name: 'buyer' } }))
  user = createPlatformClient({ url: d.urls.platform, userKey })
  const a = await user.createAgent({ body: { name: 'buyer', network: 'local-base' } })
  ;[agentId, wallet] = [a.id, a.wallet]
  await d.call('/api/local/faucet', { body: { network: 'local-base', to: a.wallet, token: 'PUSD', amount: '1' } })
  agentKey = (await user.createAgentKey({ params: { id: a.id }, body: {} })).agentKey
  const app = express()
  // A seller whose facilitator offers x402's offer-receipt: its settlement answer carries its own signed receipt.
  app.use('/signed', (_req, res, next) => {
    const set = res.setHeader.bind(res)
    res.setHeader = ((k: string, v: never) => {
      if (k.toLowerCase() !== 'payment-response') return set(k, v)
      const settle = JSON.parse(Buffer.from(String(v), 'base64').toString('utf8'))
      return set(
        k,
        Buffer.from(
          JSON.stringify({ ...settle, extensions: { 'offer-receipt': { info: { receipt: sellerReceipt } } } }),
        ).toString('base64') as never,
      )
    }) as typeof res.setHeader
    next()
  })
  const price = { prices: [{ network: 'local-base', asset: 'PUSD', amount: String(10n ** 16n), payTo }] }
  app.use(paymentGate({ facilitator: { url: d.urls.facilitator }, routes: { 'GET /signed': price } }))
  app.get('/signed', (_req, res) => void res.json({ data: 'report' }))
  seller = await listen(app)
  const sellerUser = createPlatformClient({
    url: d.urls.platform,
    userKey: (await op.createUser({ body: { name: 'seller' } })).userKey,
  })
  endpointUrl = (
    await sellerUser.createEndpoint({
      body: {
        upstreamUrl: `${d.urls.api}/api/health`,
        name: 'health',
        price: '0.02',
        network: 'local-base',
        token: 'PUSD',
        payTo: randomAddress(),
      },
    })
  ).url
}, 120_000)
afterAll(async () => {
  await seller?.close()
  await d?.close()
  rmSync(tmp, { recursive: true, force: true })
})

type Run = { code: number | null; stdout: string; stderr: string }
/** The compiled `parx`, as a script runs it; `net: false` runs it with no platform address at all (offline). */
function parx(args: string[], opts: { net?: boolean; stdin?: string } = {}): Promise<Run> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PARX_CONFIG_DIR: join(tmp, 'config'),
    PARX_RUNTIME_DIR: join(tmp, 'run'),
    NO_COLOR: '1',
    ...(opts.net === false
      ? {
          PARX_AGENTS_URL: 'http://127.0.0.1:9',
          PARX_API_URL: 'http://127.0.0.1:9',
          PARX_AGENT_KEY: '',
          PARX_USER_KEY: '',
        }
      : {
          PARX_AGENTS_URL: d.urls.platform,
          PARX_API_URL: d.urls.api,
          PARX_AGENT_KEY: agentKey,
          PARX_AGENT_ID: agentId,
          PARX_USER_KEY: '',
        }),
  }
  const child = spawn(process.execPath, [bin, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (b: Buffer) => (stdout += b))
  child.stderr.on('data', (b: Buffer) => (stderr += b))
  child.stdin.end(opts.stdin ?? '')
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })))
}
const file = (name: string, content: unknown) => {
  const p = join(tmp, name)
  writeFileSync(p, typeof content === 'string' ? content : JSON.stringify(content))
  return p
}

describe('receipts (compiled binary, real daemon)', () => {
  let signer = ''
  let receipts: SignedReceipt[] = []

  it('the manifest publishes the receipt signer: the address of the deployment receipt key', async () => {
    const r = await parx(['manifest', '-o', 'json'])
    expect(r.code, r.stderr).toBe(0)
    const m = JSON.parse(r.stdout) as Manifest
    signer = m.receipts.signer!
    expect(signer).toBe(privateKeyToAccount(d.services.keys.receipt!).address)
    expect(m.receipts).toEqual({ signer, domain: { name: 'parx receipt', version: '1' }, primaryType: 'Receipt' })
  })

  it("a settled pay answers with its signed receipt, stored before the answer; the seller's own receipt is kept beside it", async () => {
    const agent = createPlatformClient({ url: d.urls.platform, agentKey })
    const r = await agent.pay({ params: { id: agentId }, body: { url: `${seller.url}/signed`, maxAmount: '0.01' } })
    if (r.dryRun || !r.receipt?.signed) throw new Error(`no signed receipt: ${JSON.stringify(r)}`)
    const s = r.receipt.signed
    expect(s.signer).toBe(signer)
    expect(s.message).toMatchObject({
      agentId,
      agentWallet: wallet,
      host: '127.0.0.1',
      payTo,
      network: networks['local-base']!.caip2,
      token: d.services.base.tokens.PUSD!.address,
      symbol: 'PUSD',
      decimals: 18,
      amount: String(10n ** 16n),
      protocol: 'x402-v2',
      transaction: r.receipt.transaction,
    })
    expect(s.sellerReceipt).toEqual(sellerReceipt)
    // The same receipt from the route, for the agent's key and its user's; the payment is marked as having one.
    expect(await agent.showReceipt({ params: { id: agentId, paymentId: s.message.paymentId } })).toEqual(s)
    expect(await user.showReceipt({ params: { id: agentId, paymentId: s.message.paymentId } })).toEqual(s)
    const page = await user.listPayments({ params: { id: agentId } })
    expect(page.payments.find((p) => p.id === s.message.paymentId)).toMatchObject({
      kind: 'pay',
      state: 'confirmed',
      receipt: true,
    })
    // Another user's key learns nothing of it.
    const op = createPlatformClient({ url: d.urls.platform, operatorToken: d.services.keys.operatorToken })
    const stranger = (await op.createUser({ body: { name: 'stranger' } })).userKey
    const res = await d.raw(`/api/agents/${agentId}/receipts/${s.message.paymentId}`, {
      headers: { 'x-user-key': stranger },
    })
    expect(res.status).toBe(404)
    expect(res.body).toMatchObject({ code: 'NOT_FOUND' })
  }, 60_000)

  it('`parx pay` through a parx paid endpoint gets one too, and `parx payments --receipts` exports both (JSON lines; an array with -o json)', async () => {
    const paid = await parx(['pay', endpointUrl, '--max', '0.02', '--yes'])
    expect(paid.code, paid.stderr).toBe(0)
    expect(paid.stderr).toMatch(/Signed receipt for payment [0-9a-f-]{36}/)
    const lines = await parx(['payments', '--receipts'])
    expect(lines.code, lines.stderr).toBe(0)
    receipts = lines.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as SignedReceipt)
    expect(receipts.map((r) => [r.message.host, r.message.amount])).toEqual([
      [new URL(endpointUrl).hostname, String(2n * 10n ** 16n)],
      ['127.0.0.1', String(10n ** 16n)],
    ])
    expect(receipts[0]!.sellerReceipt).toBeNull()
    expect(receipts[1]!.sellerReceipt).toEqual(sellerReceipt)
    const json = await parx(['payments', '--receipts', '-o', 'json'])
    expect(JSON.parse(json.stdout)).toEqual(receipts)
    const csv = await parx(['payments', '--receipts', '-o', 'csv'])
    expect(csv.code).toBe(2)
  }, 60_000)

  it('`parx receipt verify` passes them offline, pinned to the manifest signer or (with a warning) as named', async () => {
    const all = file('all.jsonl', `${receipts.map((r) => JSON.stringify(r)).join('\n')}\n`)
    const pinned = await parx(['receipt', 'verify', all, '--signer', signer], { net: false })
    expect(pinned.code, pinned.stderr).toBe(0)
    expect(pinned.stdout.trim().split('\n')).toHaveLength(2)
    expect(pinned.stdout).toMatch(/^valid {2}/)
    expect(pinned.stderr).not.toMatch(/warning/)
    const named = await parx(['receipt', 'verify', '-', '-o', 'json'], {
      net: false,
      stdin: JSON.stringify(receipts[1]),
    })
    expect(named.code, named.stderr).toBe(0)
    expect(JSON.parse(named.stdout)).toMatchObject({
      valid: true,
      receipts: [{ paymentId: receipts[1]!.message.paymentId, valid: true, pinned: false, signer }],
    })
    expect(named.stderr).toMatch(/warning: checked against the signer the receipt names/)
  }, 60_000)

  it('fails (exit 10, RECEIPT_INVALID) when any field is changed or another key is pinned; RECEIPT_MALFORMED when it is not a receipt', async () => {
    const r = receipts[1]!
    const changes: Record<string, unknown> = {
      amount: String(BigInt(r.message.amount) + 1n),
      payTo: randomAddress(),
      host: 'evil.example.com',
      transaction: `0x${'00'.repeat(32)}`,
      agentWallet: randomAddress(),
      paidAt: r.message.paidAt - 1,
      network: 'eip155:1',
      token: randomAddress(),
      paymentId: '00000000-0000-4000-8000-000000000000',
    }
    for (const [field, value] of Object.entries(changes)) {
      const bad = await parx(
        [
          'receipt',
          'verify',
          file(`${field}.json`, { ...r, message: { ...r.message, [field]: value } }),
          '--signer',
          signer,
          '-o',
          'json',
        ],
        { net: false },
      )
      expect(bad.code, field).toBe(10)
      expect(JSON.parse(bad.stdout || bad.stderr), field).toMatchObject({ code: 'RECEIPT_INVALID' })
    }
    const other = await parx(['receipt', 'verify', file('ok.json', r), '--signer', randomAddress(), '-o', 'json'], {
      net: false,
    })
    expect(other.code).toBe(10)
    const malformed = await parx(
      ['receipt', 'verify', file('bad.json', { ...r, message: { ...r.message, amount: 'a lot' } }), '-o', 'json'],
      { net: false },
    )
    expect(malformed.code).toBe(10)
    expect(JSON.parse(malformed.stdout || malformed.stderr)).toMatchObject({ code: 'RECEIPT_MALFORMED' })
    // The receipt file itself was not touched by any of this.
    expect(JSON.parse(readFileSync(join(tmp, 'ok.json'), 'utf8'))).toEqual(r)
  }, 120_000)
})

/**
 * Hosted replicas sign with one receipt key (PARX_RECEIPT_KEY on each): a second daemon on the same
 * PostgreSQL, given the first one's key, publishes the same signer and serves the receipts the first
 * one signed, byte for byte. (Two in-process local daemons each run their own embedded chain, so
 * the pays themselves go through the first; the receipts are the shared store's.)
 */
describe.runIf(testDialect() === 'postgres')('receipts across replicas (PostgreSQL)', () => {
  it('a replica sharing the store and the receipt key publishes the same signer and serves the same receipts', async () => {
    const b = await startTestDaemon({
      flags: { store: { url: d.services.config.store.url }, keys: { receipt: d.services.keys.receipt } },
    })
    try {
      const onA = createPlatformClient({ url: d.urls.platform, agentKey })
      const onB = createPlatformClient({ url: b.urls.platform, agentKey })
      expect((await onB.manifest({})).receipts.signer).toBe((await onA.manifest({})).receipts.signer)
      const fromA = await onA.listReceipts({ params: { id: agentId } })
      expect(fromA.receipts.length).toBeGreaterThanOrEqual(2)
      expect(await onB.listReceipts({ params: { id: agentId } })).toEqual(fromA)
      const [first] = fromA.receipts
      expect(await onB.showReceipt({ params: { id: agentId, paymentId: first!.message.paymentId } })).toEqual(first)
    } finally {
      await b.close()
    }
  }, 180_000)
})
