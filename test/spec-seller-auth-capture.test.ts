import { x402Client } from '@x402/core/client'
import { toClientEvmSigner } from '@x402/evm'
import { AuthCaptureEvmScheme } from '@x402/evm/auth-capture/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import { type Address, createWalletClient, type Hex, http, parseEther } from 'viem'
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AUTH_CAPTURE_V1_1, authCaptureEscrowAbi } from '../src/sdk/x402/evm/auth-capture/contracts.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { type SpecSeller, specAuthCaptureSeller } from './helpers/spec-auth-capture-seller.js'
import { evmPayer, localBase } from './helpers/x402.js'

/**
 * A minimal seller written from the x402 auth-capture spec (test/helpers/spec-auth-capture-seller.ts:
 * express and parx's facilitator over HTTP, nothing else of parx) paid by the official @x402/fetch
 * with @x402/evm's auth-capture client 2.27.0 unchanged. The buyer holds USDC and no ETH until its
 * own reclaim. Held, captured in full, in part with the rest voided in one settle, voided on a
 * failing handler, a capture refunded in part, a deferred hold captured twice, a lifecycle settle sent again answered with its
 * first outcome, and a hold never captured reclaimed by the payer once the capture deadline passed.
 * Every balance is read on chain to the unit.
 */
let d: TestDaemon
let seller: SpecSeller
let buyer: PrivateKeyAccount
let pay: typeof fetch
let operator: Address
const payTo = privateKeyToAccount(generatePrivateKey())
const PRICE = 1000n

beforeAll(async () => {
  d = await startTestDaemon()
  const b = localBase(d)
  const apiKey = (
    await d.call<{ key: string }>('/api/operator/keys', {
      body: { name: 'spec-seller', owner: payTo.address },
      headers: d.operatorHeaders(),
    })
  ).key
  seller = await specAuthCaptureSeller({
    facilitator: d.urls.facilitator,
    apiKey,
    network: b.caip2,
    payTo: payTo.address,
    asset: b.token('USDC').address as Address,
    routes: {
      '/full': { amount: String(PRICE) },
      '/metered': { amount: String(PRICE), charge: '400' },
      '/broken': { amount: String(PRICE), fails: true },
      '/deferred': { amount: String(PRICE), deferred: true },
      '/abandoned': { amount: String(PRICE), deferred: true, captureDeadlineSeconds: 600 },
    },
  })
  buyer = await evmPayer(d, ['USDC'], '10')
  pay = wrapFetchWithPayment(
    fetch,
    x402Client.fromConfig({
      schemes: [
        { network: 'eip155:*', client: new AuthCaptureEvmScheme(toClientEvmSigner(buyer, b.chain.client as never)) },
      ],
      // The local USDC is not in the client's default asset table.
      spendControls: {
        allowedAssets: [
          {
            network: b.caip2 as `${string}:${string}`,
            asset: b.token('USDC').address as Address,
            maxAmountPerPayment: '10000',
          },
        ],
      },
    }),
  )
  const s = await d.call<{ kinds: Array<{ scheme: string; network: string; extra: Record<string, unknown> }> }>(
    '/facilitator/supported',
  )
  operator = s.kinds.find((k) => k.scheme === 'auth-capture' && k.network === b.caip2)!.extra
    .captureAuthorizer as Address
})
afterAll(async () => {
  await seller?.close()
  await d?.stop()
})

const balance = (a: Address) => localBase(d).balance('USDC', a)
const balances = async () => {
  // What is held sits in the operator's token store (the escrow's per-operator vault).
  const store = (await localBase(d).chain.client.readContract({
    address: AUTH_CAPTURE_V1_1.escrow,
    abi: authCaptureEscrowAbi['v1.1'],
    functionName: 'getTokenStore',
    args: [operator],
  })) as Address
  const [b, s, o, e] = await Promise.all([
    balance(buyer.address),
    balance(payTo.address),
    balance(operator),
    balance(store),
  ])
  return { buyer: b, seller: s, operator: o, held: e }
}
const receipt = (r: Response) =>
  JSON.parse(Buffer.from(r.headers.get('payment-response') ?? 'e30=', 'base64').toString('utf8')) as Record<string, any>
const eth = (a: Address) => localBase(d).chain.client.getBalance({ address: a })
/** The escrow's struct for a hold the seller persisted (the wire form's maxAmount is a string). */
const struct = (id: string) => {
  const i = seller.holds.get(id)!.paymentInfo
  return { ...i, maxAmount: BigInt(i.maxAmount as string) } as never
}
const state = (id: string) =>
  localBase(d).chain.client.readContract({
    address: AUTH_CAPTURE_V1_1.escrow,
    abi: authCaptureEscrowAbi['v1.1'],
    functionName: 'paymentState',
    args: [id as Hex],
  }) as Promise<readonly [boolean, bigint, bigint]>

describe("a spec-following express seller, the official client, parx's facilitator", () => {
  it("answers 402 with an auth-capture offer on the facilitator's terms", async () => {
    const r = await fetch(`${seller.url}/full`)
    expect(r.status).toBe(402)
    const required = JSON.parse(Buffer.from(r.headers.get('payment-required')!, 'base64').toString('utf8'))
    expect(required.accepts[0]).toMatchObject({
      scheme: 'auth-capture',
      amount: '1000',
      extra: { captureAuthorizer: operator, operatorType: 'delegated', paymentFlow: 'escrow' },
    })
    expect(seller.holds.size).toBe(0)
  })

  it('holds, serves, captures the full price: the buyer (no ETH) pays exactly the price', async () => {
    const b0 = await balances()
    const r = await pay(`${seller.url}/full`)
    expect(r.status).toBe(200)
    const p = receipt(r)
    expect(p, JSON.stringify(p)).toMatchObject({
      success: true,
      amount: '1000',
      extra: { operation: 'capture', voided: '0' },
    })
    expect(await balances()).toEqual({ ...b0, buyer: b0.buyer - PRICE, seller: b0.seller + PRICE })
    expect(await state(p.extra.paymentInfoHash)).toEqual([true, 0n, 1000n])
    expect(await eth(buyer.address)).toBe(0n)
  })

  it('captures part and voids the rest in the same settle (one transaction)', async () => {
    const b0 = await balances()
    const r = await pay(`${seller.url}/metered`)
    expect(r.status).toBe(200)
    const p = receipt(r)
    expect(p).toMatchObject({ success: true, amount: '400', extra: { operation: 'capture', voided: '600' } })
    const tx = await localBase(d).chain.client.getTransactionReceipt({ hash: p.transaction })
    expect(tx.status).toBe('success')
    expect(await state(p.extra.paymentInfoHash)).toEqual([true, 0n, 400n])
    expect(await balances()).toEqual({ ...b0, buyer: b0.buyer - 400n, seller: b0.seller + 400n })
  })

  it('voids the hold when the handler fails: the buyer is whole', async () => {
    const b0 = await balances()
    const r = await pay(`${seller.url}/broken`)
    expect(r.status).toBe(500)
    expect(receipt(r)).toMatchObject({ success: true, amount: '0', extra: { operation: 'void', voided: '1000' } })
    expect(await balances()).toEqual(b0)
  })

  it('deferred: two captures of one hold, the second closing out the rest; a capture sent again is answered its first outcome', async () => {
    const b0 = await balances()
    const r = await pay(`${seller.url}/deferred`)
    expect(r.status).toBe(200)
    const held = receipt(r)
    expect(held).toMatchObject({ success: true, amount: '1000', extra: { operation: 'authorize' } })
    const id = held.extra.paymentInfoHash as string
    expect(await balances()).toEqual({ ...b0, buyer: b0.buyer - PRICE, held: b0.held + PRICE })
    const first = await seller.capture(id, 300n, { idempotencyKey: 'order-7:capture-1' })
    expect(first, JSON.stringify(first)).toMatchObject({ success: true, amount: '300', extra: { voided: '0' } })
    // The same settle again (a seller that lost the answer): the first outcome, nothing moves.
    const again = await seller.lifecycle(id, {
      type: 'capture',
      amount: '300',
      feeAmount: '0',
      feeReceiver: '0x0000000000000000000000000000000000000000',
      expectedCapturableAmount: '1000',
      expectedRefundableAmount: '0',
      idempotencyKey: 'order-7:capture-1',
    })
    expect(again).toMatchObject({
      success: true,
      transaction: first.transaction,
      amount: '300',
      extra: { replayed: true },
    })
    expect(await state(id)).toEqual([true, 700n, 300n])
    const second = await seller.capture(id, 200n, { closeOut: true })
    expect(second).toMatchObject({ success: true, amount: '200', extra: { voided: '500' } })
    expect(await state(id)).toEqual([true, 0n, 500n])
    expect(await balances()).toEqual({ ...b0, buyer: b0.buyer - 500n, seller: b0.seller + 500n })
    expect(await eth(buyer.address)).toBe(0n)
  })

  it("refunds part of a capture later, funded by payTo's own signature (no ETH); the facilitator's balance never moves", async () => {
    const r = await pay(`${seller.url}/full`)
    const id = receipt(r).extra.paymentInfoHash as string
    const b0 = await balances()
    const refund = await seller.refund(id, 300n, payTo)
    expect(refund, JSON.stringify(refund)).toMatchObject({
      success: true,
      amount: '300',
      extra: { operation: 'refund' },
    })
    expect(await state(id)).toEqual([true, 0n, 700n])
    expect(await balances()).toEqual({ ...b0, buyer: b0.buyer + 300n, seller: b0.seller - 300n })
    expect(await eth(payTo.address)).toBe(0n)
  })

  // Last: it moves the chain's clock past the deadline.
  it('a hold never captured is reclaimed by the payer itself after the capture deadline, not before', async () => {
    const chain = localBase(d).chain
    const b0 = await balances()
    const r = await pay(`${seller.url}/abandoned`)
    const id = receipt(r).extra.paymentInfoHash as string
    expect(await balances()).toEqual({ ...b0, buyer: b0.buyer - PRICE, held: b0.held + PRICE })
    // reclaim is the payer's own call, never relayed: it needs ETH for this one transaction.
    await chain.client.request({
      method: 'anvil_setBalance' as never,
      params: [buyer.address, `0x${parseEther('1').toString(16)}`] as never,
    })
    const reclaim = {
      address: AUTH_CAPTURE_V1_1.escrow,
      abi: authCaptureEscrowAbi['v1.1'],
      functionName: 'reclaim',
      args: [struct(id)],
      account: buyer,
    } as const
    await expect(chain.client.simulateContract(reclaim as never)).rejects.toThrow(/BeforeAuthorizationExpiry/)
    const expiry = Number((seller.holds.get(id)!.paymentInfo as { authorizationExpiry: number }).authorizationExpiry)
    const head = await chain.client.getBlock()
    await chain.client.request({
      method: 'evm_increaseTime' as never,
      params: [expiry - Number(head.timestamp) + 1] as never,
    })
    await chain.client.request({ method: 'evm_mine' as never, params: [] as never })
    const wallet = createWalletClient({ account: buyer, chain: chain.client.chain, transport: http(chain.rpcUrl) })
    const hash = await wallet.writeContract({ ...reclaim, chain: chain.client.chain } as never)
    expect((await chain.client.waitForTransactionReceipt({ hash, pollingInterval: 20 })).status).toBe('success')
    expect(await state(id)).toEqual([true, 0n, 0n])
    expect(await balances()).toEqual(b0)
    // Nothing is left to capture.
    expect((await seller.capture(id, 1n)).success).toBe(false)
    expect(await balances()).toEqual(b0)
  })
})
