import { createServer, type Server } from 'node:http'
import { type Address, createWalletClient, type Hex, http, parseEther, parseSignature } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPlatformClient, type PlatformClient } from '../src/sdk/platform/client.js'
import { tokenAbi } from '../src/sdk/x402/evm/calls.js'
import { decodeHeader, encodeHeader } from '../src/sdk/x402/wire.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { randomAddress } from './helpers/x402.js'

/**
 * Limits that hold against a hostile seller (issue 25 item 2): a seller on 127.0.0.1 prices 0.40
 * USDC with maxTimeoutSeconds of a year, keeps every signed payment, answers 402 or 500 without
 * settling, and submits the signatures on chain itself later. The agent's daily limit is 1 USD: at
 * most 1.00 may leave its wallet, whatever the seller does. The daemon caps validity at 10 s
 * (`pay.validitySeconds`, its lowest allowed: a facilitator wants 6 s left when it checks) so the
 * expiry cases run in a test's time; the seller's kept signatures are submitted within a second or two.
 */
const CAP = 10
/** The worker leader's recheck of held spends (`pay.heldRecheckEverySeconds`, default 5 s): a release comes sooner. */
const RECHECK_SECONDS = 0.5
const YEAR = 365 * 86_400
const PRICE = 400_000n // 0.40 USDC (6 decimals)
let d: TestDaemon
let user: PlatformClient
let userKey: string
let seller: {
  url: string
  kept: Array<{ path: string; payload: Record<string, any>; at: number }>
  close(): Promise<void>
}
const payTo = randomAddress()
const attacker = privateKeyToAccount(generatePrivateKey())

/** The hostile seller: x402 v2 terms (eip3009 USDC; erc2612 PUSD naming the attacker as spender), never settles. */
async function hostileSeller(): Promise<typeof seller> {
  const chain = d.services.base
  const kept: typeof seller.kept = []
  let answers = 0
  const offer = (symbol: 'USDC' | 'PUSD', amount: string) => {
    const t = chain.tokens[symbol]!
    return {
      scheme: 'exact',
      network: chain.spec.caip2,
      asset: t.address,
      amount,
      payTo,
      maxTimeoutSeconds: YEAR,
      extra: {
        name: t.permitDomain!.name,
        version: t.permitDomain!.version,
        assetTransferMethod: symbol === 'USDC' ? 'eip3009' : 'erc2612',
        ...(symbol === 'PUSD' ? { spender: attacker.address } : {}),
      },
    }
  }
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!
    const accepts = [
      path === '/pusd' ? offer('PUSD', (PRICE * 10n ** 12n).toString()) : offer('USDC', PRICE.toString()),
    ]
    const terms = encodeHeader({ x402Version: 2, resource: { url: `${seller.url}${path}` }, accepts })
    const signature = req.headers['payment-signature']
    if (typeof signature === 'string') {
      kept.push({ path, payload: decodeHeader<Record<string, any>>(signature)!, at: Math.floor(Date.now() / 1000) })
      // Alternately a refusal and a failure; neither settles.
      if (answers++ % 2 === 0)
        return void res
          .writeHead(402, {
            'payment-required': encodeHeader({ x402Version: 2, error: 'insufficient_funds', accepts }),
          })
          .end('{}')
      return void res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"try later"}')
    }
    res.writeHead(402, { 'payment-required': terms, 'content-type': 'application/json' }).end('{}')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`
  return { url, kept, close: () => new Promise((resolve) => server.close(() => resolve())) }
}

beforeAll(async () => {
  d = await startTestDaemon({ file: { pay: { validitySeconds: CAP, heldRecheckEverySeconds: RECHECK_SECONDS } } })
  const op = createPlatformClient({ url: d.urls.platform, operatorToken: d.services.keys.operatorToken })
  userKey = (await op.createUser({ body: { name: 'victim' } })).userKey
  user = createPlatformClient({ url: d.urls.platform, userKey })
  seller = await hostileSeller()
  const chain = d.services.base
  await chain.client.request({
    method: 'anvil_setBalance' as never,
    params: [attacker.address, `0x${parseEther('1').toString(16)}`] as never,
  })
}, 120_000)
afterAll(async () => {
  await seller?.close()
  await d?.close()
})

const balance = (symbol: string, owner: Address) =>
  d.services.base.client.readContract({
    address: d.services.base.tokens[symbol]!.address,
    abi: tokenAbi,
    functionName: 'balanceOf',
    args: [owner],
  })
const spent = async (id: string) => (await user.getLimits({ params: { id } })).spentTodayUsd
async function agent(limit = '1') {
  const a = await user.createAgent({ body: { name: 'buyer', network: 'local-base' } })
  for (const token of ['USDC', 'PUSD'])
    await d.call('/api/local/faucet', { body: { network: 'local-base', to: a.wallet, token, amount: '5' } })
  await user.setLimits({ params: { id: a.id }, body: { dailyUsd: limit } })
  return a
}
const pay = (id: string, path: string) =>
  d.raw(`/api/agents/${id}/pay`, {
    method: 'POST',
    headers: { 'x-user-key': userKey, 'content-type': 'application/json' },
    body: JSON.stringify({ url: `${seller.url}${path}` }),
  })
const wallet = () =>
  createWalletClient({
    account: attacker,
    chain: d.services.base.client.chain,
    transport: http(d.services.base.rpcUrl),
  })

/** What the attacker does with a kept signature: submits it itself. True when the transaction succeeded. */
async function submit(kept: { path: string; payload: Record<string, any> }): Promise<boolean> {
  const chain = d.services.base
  const { signature, authorization: a } = kept.payload.payload as {
    signature: Hex
    authorization: Record<string, string>
  }
  const { r, s, v, yParity } = parseSignature(signature)
  const vv = Number(v ?? BigInt(yParity + 27))
  try {
    if (kept.path === '/pusd') {
      const token = chain.tokens.PUSD!.address
      const permit = await wallet().writeContract({
        address: token,
        abi: tokenAbi,
        functionName: 'permit',
        chain: chain.client.chain,
        args: [a.from as Address, attacker.address, BigInt(a.value!), BigInt(a.validBefore!), vv, r, s],
      })
      if ((await chain.client.waitForTransactionReceipt({ hash: permit, pollingInterval: 20 })).status !== 'success')
        return false
      const pull = await wallet().writeContract({
        address: token,
        abi: tokenAbi,
        functionName: 'transferFrom',
        chain: chain.client.chain,
        args: [a.from as Address, attacker.address, BigInt(a.value!)],
      })
      return (await chain.client.waitForTransactionReceipt({ hash: pull, pollingInterval: 20 })).status === 'success'
    }
    const hash = await wallet().writeContract({
      address: chain.tokens.USDC!.address,
      abi: tokenAbi,
      functionName: 'transferWithAuthorization',
      chain: chain.client.chain,
      args: [
        a.from as Address,
        a.to as Address,
        BigInt(a.value!),
        BigInt(a.validAfter!),
        BigInt(a.validBefore!),
        a.nonce as Hex,
        vv,
        r,
        s,
      ],
    })
    return (await chain.client.waitForTransactionReceipt({ hash, pollingInterval: 20 })).status === 'success'
  } catch {
    // Reverted in simulation: expired, or the nonce was used.
    return false
  }
}

/** A block after the wall clock: the embedded chain mines on demand, a live chain would have one already. */
const mine = () => d.services.base.client.request({ method: 'evm_mine' as never, params: [] as never })
async function until<T>(what: () => Promise<T>, ok: (v: T) => boolean, ms = 40_000): Promise<T> {
  const end = Date.now() + ms
  for (;;) {
    const v = await what()
    if (ok(v) || Date.now() > end) return v
    await new Promise((r) => setTimeout(r, 250))
  }
}

describe('pay against a hostile seller (daily limit 1 USD)', () => {
  it('five refused 0.40 payments, every kept authorization submitted on chain afterwards: at most 1.00 moves', async () => {
    const a = await agent('1')
    const before = await balance('USDC', a.wallet)
    const answers = []
    for (let i = 0; i < 5; i++) answers.push(await pay(a.id, '/usdc'))
    // The seller submits every signature it kept, itself.
    const kept = seller.kept.filter((k) => k.payload.payload.authorization.from === a.wallet)
    let submitted = 0
    for (const k of kept) if (await submit(k)) submitted++
    const moved = before - (await balance('USDC', a.wallet))
    console.log(
      'hostile seller: signatures kept',
      kept.length,
      'submitted',
      submitted,
      'USDC moved',
      Number(moved) / 1e6,
    )
    expect(moved).toBeLessThanOrEqual(1_000_000n)
    // Two fit the limit and stay reserved (nothing charged YET); the rest are refused before signing.
    expect(answers.map((r) => r.body.code)).toEqual([
      'PAYMENT_REFUSED',
      'SELLER_FAILED',
      'LIMIT_EXCEEDED',
      'LIMIT_EXCEEDED',
      'LIMIT_EXCEEDED',
    ])
    for (const r of answers.slice(0, 2)) {
      expect(r.body).toMatchObject({ charged: false, transaction: null, reservedUntil: expect.any(String) })
      expect(r.body.error).toMatch(/nothing was charged yet.*reserved/)
    }
    expect(kept).toHaveLength(2)
    // The seller asked for a year; the signatures are valid for the cap at most.
    for (const k of kept)
      expect(Number(k.payload.payload.authorization.validBefore) - k.at).toBeLessThanOrEqual(CAP + 1)
    expect([submitted, moved]).toEqual([2, 2n * PRICE])
    expect(await spent(a.id)).toBe('0.8')
  }, 120_000)

  it('an erc2612 permit naming the seller as spender: deadline capped, at most the limit moves', async () => {
    const a = await agent('1')
    const before = await balance('PUSD', a.wallet)
    const codes = []
    for (let i = 0; i < 3; i++) codes.push((await pay(a.id, '/pusd')).body.code)
    const kept = seller.kept.filter((k) => k.path === '/pusd' && k.payload.payload.authorization.from === a.wallet)
    // Two fit the limit and were signed (and kept), the third is refused before signing.
    expect(codes).toEqual(['PAYMENT_REFUSED', 'SELLER_FAILED', 'LIMIT_EXCEEDED'])
    expect(kept).toHaveLength(2)
    for (const k of kept)
      expect(Number(k.payload.payload.authorization.validBefore) - k.at).toBeLessThanOrEqual(CAP + 1)
    const submitted = []
    for (const k of kept) submitted.push(await submit(k))
    const moved = before - (await balance('PUSD', a.wallet))
    console.log(
      'hostile seller erc2612: signatures kept',
      kept.length,
      'submitted',
      submitted.join(','),
      'PUSD moved',
      Number(moved) / 1e18,
    )
    // The attack works (the first permit pulls its 0.40; the second was signed on the same permit
    // nonce, so at most one of them can be used), and what moved is what the submitted permits allowed, within the limit.
    expect(submitted[0]).toBe(true)
    expect(moved).toBe(BigInt(submitted.filter(Boolean).length) * PRICE * 10n ** 12n)
    expect(moved).toBeLessThanOrEqual(10n ** 18n)
  }, 120_000)

  it('a refused payment stays reserved until it expires, then the worker releases it; one used after the refusal is confirmed as charged', async () => {
    const unused = await agent('1')
    const used = await agent('1')
    const r1 = await pay(unused.id, '/usdc')
    const r2 = await pay(used.id, '/usdc')
    expect(r1.body).toMatchObject({ charged: false, reservedUntil: expect.any(String) })
    expect(r2.body).toMatchObject({ charged: false, reservedUntil: expect.any(String) })
    // The seller uses one signature after refusing it.
    const usedKept = seller.kept.find((k) => k.payload.payload.authorization.from === used.wallet)!
    expect(await submit(usedKept)).toBe(true)
    // Before expiry: both reserved, read again and again up to a second before it, so every worker
    // round meanwhile (one each RECHECK_SECONDS) is seen to leave them, instead of one look after a fixed wait.
    const reservedUntil = Date.parse(r1.body.reservedUntil as string)
    do {
      expect([await spent(unused.id), await spent(used.id)]).toEqual(['0.4', '0.4'])
      await new Promise((r) => setTimeout(r, 250))
    } while (Date.now() < reservedUntil - 1_000)
    // After it: the unused one released, the used one confirmed with its transaction. Once the wall
    // clock is past it, a block that is too (the embedded chain mines on demand).
    await new Promise((r) => setTimeout(r, Math.max(0, reservedUntil - Date.now())))
    await until(
      async () => {
        await mine()
        return (await d.services.base.client.getBlock()).timestamp
      },
      (t) => t * 1000n >= BigInt(reservedUntil),
    )
    expect(
      await until(
        () => spent(unused.id),
        (v) => v === '0',
      ),
    ).toBe('0')
    const row = await until(
      () =>
        d.services.store.db
          .selectFrom('platform_spends')
          .selectAll()
          .where('agent_id', '=', used.id)
          .executeTakeFirstOrThrow(),
      (r) => r.state !== 'reserved',
    )
    expect(row.state).toBe('confirmed')
    expect(row.tx).toMatch(/^0x[0-9a-f]{64}$/)
    expect(await spent(used.id)).toBe('0.4')
    // And the released one can no longer be used.
    expect(await submit(seller.kept.find((k) => k.payload.payload.authorization.from === unused.wallet)!)).toBe(false)
  }, 150_000)
})
