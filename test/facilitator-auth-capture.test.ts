import { toClientEvmSigner } from '@x402/evm'
import { AuthCaptureEvmScheme } from '@x402/evm/auth-capture/client'
import {
  type Address,
  createWalletClient,
  erc20Abi,
  type Hex,
  http,
  keccak256,
  maxUint256,
  parseEther,
  serializeErc6492Signature,
  toHex,
  zeroAddress,
} from 'viem'
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAccountData, ownedWalletFactory, ownedWalletFactoryAbi } from '../contracts/evm/testing/owned-wallet.js'
import { receiveWithAuthorizationTypes } from '../src/sdk/eip712.js'
import { authorizerTypedData } from '../src/sdk/x402/evm/auth-capture/authorizer.js'
import { AUTH_CAPTURE_V1_1 } from '../src/sdk/x402/evm/auth-capture/contracts.js'
import { PERMIT2_ADDRESS } from '../src/sdk/x402/evm/permit2.js'
import type { PaymentRequirements, SettleResponse } from '../src/sdk/x402/types.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { evmPayer, localBase, nowSeconds, post, settle, verify } from './helpers/x402.js'

/**
 * x402 auth-capture through our facilitator on the local profile, the collect payload built by
 * the official @x402/evm 2.27.0 auth-capture client unchanged: a buyer holding USDC and no ETH is
 * held, captured (in part, the rest voided in the same settle), voided and refunded, the seller
 * delegating its receiver authorizer to the facilitator and authenticating with a partner key
 * bound to payTo. Every balance is checked on chain to the unit.
 */
let d: TestDaemon
let buyer: PrivateKeyAccount
let operator: Address
let authorizer: Address
let sellerKey: string
const seller = privateKeyToAccount(generatePrivateKey())
const payTo = seller.address
const allowed = ownedWalletFactory('parx test wallet factory (auth-capture, allow-listed)')
const stranger = ownedWalletFactory('parx test wallet factory (auth-capture, not allow-listed)')

beforeAll(async () => {
  d = await startTestDaemon({ file: { facilitator: { eip6492Factories: [allowed.address] } } })
  const chain = localBase(d).chain
  const deployer = privateKeyToAccount(generatePrivateKey())
  await chain.client.request({
    method: 'anvil_setBalance' as never,
    params: [deployer.address, `0x${parseEther('1').toString(16)}`] as never,
  })
  const wallet = createWalletClient({ account: deployer, chain: chain.client.chain, transport: http(chain.rpcUrl) })
  for (const f of [allowed, stranger]) {
    await chain.client.waitForTransactionReceipt({
      hash: await wallet.sendTransaction({ ...f.deployTx, chain: chain.client.chain, gas: 3_000_000n }),
      pollingInterval: 20,
    })
  }
  buyer = await evmPayer(d, ['USDC'], '10')
  // The seller's own USDC funds its refunds (it pays no gas: it only signs).
  await d.call('/api/local/faucet', { body: { to: payTo, token: 'USDC', amount: '1' } })
  sellerKey = (
    await d.call<{ key: string }>('/api/operator/keys', {
      body: { name: 'seller', owner: payTo },
      headers: d.operatorHeaders(),
    })
  ).key
})
afterAll(async () => d?.stop())

const usdc = () => localBase(d).token('USDC')
const balance = (a: Address) => localBase(d).balance('USDC', a)
const network = () => localBase(d).caip2 as `${string}:${string}`
const req = (extra: Record<string, unknown> = {}, amount = '1000'): PaymentRequirements => {
  const now = Number(nowSeconds())
  return {
    scheme: 'auth-capture',
    network: network(),
    amount,
    asset: usdc().address,
    payTo,
    maxTimeoutSeconds: 60,
    extra: {
      name: usdc().name,
      version: usdc().version,
      authCaptureEscrow: AUTH_CAPTURE_V1_1.escrow,
      captureAuthorizer: operator,
      operatorType: 'delegated',
      receiverAuthorizer: authorizer,
      paymentFlow: 'escrow',
      captureMode: 'sync',
      captureDeadline: now + 3600,
      refundDeadline: now + 7200,
      feeRecipient: zeroAddress,
      minFeeBps: 0,
      maxFeeBps: 0,
      ...extra,
    },
  }
}
const body = (r: PaymentRequirements, payload: Record<string, unknown>) => ({
  x402Version: 2,
  paymentPayload: { x402Version: 2, accepted: r, payload },
  paymentRequirements: r,
})
/** The official client's collect payload for `r`. */
const pay = async (r: PaymentRequirements, who = buyer) => {
  const client = new AuthCaptureEvmScheme(toClientEvmSigner(who, localBase(d).chain.client as never))
  const { payload } = await client.createPaymentPayload(2, r as never)
  return payload as Record<string, unknown>
}
const asSeller = (b: unknown) =>
  post(d, 'settle', b, { 'x-api-key': sellerKey }).then(
    (r) => r.body as SettleResponse & { amount?: string; extra?: Record<string, unknown> },
  )

/** Holds `r`'s maximum and answers what the seller persists to author lifecycle settles. */
async function authorize(r: PaymentRequirements) {
  const payload = await pay(r)
  const s = (await settle(d, body(r, payload))).body as SettleResponse & {
    amount?: string
    extra?: Record<string, unknown>
  }
  expect(s, JSON.stringify(s)).toMatchObject({ success: true, amount: r.amount, extra: { operation: 'authorize' } })
  return {
    paymentInfo: s.extra!.paymentInfo as Record<string, unknown>,
    saltNonce: payload.saltNonce as Hex,
    hash: s.extra!.paymentInfoHash as Hex,
    payload,
  }
}

describe('auth-capture through our facilitator', () => {
  it('is advertised per EVM network for USDC: our submitter as delegated capture authorizer, and our receiver authorizer', async () => {
    const s = await d.call<{
      kinds: Array<{ scheme: string; network: string; extra: Record<string, unknown> }>
      signers: Record<string, string[]>
    }>('/facilitator/supported')
    const kind = s.kinds.find(
      (k) => k.scheme === 'auth-capture' && k.network === network() && k.extra.asset === usdc().address,
    )
    expect(kind?.extra).toMatchObject({ operatorType: 'delegated', authCaptureEscrow: AUTH_CAPTURE_V1_1.escrow })
    expect(s.signers['eip155:*']).toContain(kind!.extra.captureAuthorizer)
    expect(kind!.extra.receiverAuthorizer).toMatch(/^0x[0-9a-fA-F]{40}$/)
    operator = kind!.extra.captureAuthorizer as Address
    authorizer = kind!.extra.receiverAuthorizer as Address
    expect(s.kinds.filter((k) => k.scheme === 'auth-capture').length).toBeGreaterThanOrEqual(2)
  })

  it('holds the maximum (the buyer has no ETH), once however often the payload is sent', async () => {
    expect(await localBase(d).chain.client.getBalance({ address: buyer.address })).toBe(0n)
    const r = req()
    const payload = await pay(r)
    expect(payload.saltNonce).toMatch(/^0x[0-9a-f]{64}$/)
    const before = await balance(buyer.address)
    const v = await verify(d, body(r, payload))
    expect(v).toMatchObject({ isValid: true, payer: buyer.address })
    const s = await settle(d, body(r, payload))
    expect(s.body).toMatchObject({ success: true, payer: buyer.address, amount: '1000' })
    expect((await settle(d, body(r, payload))).body).toMatchObject({
      success: false,
      errorReason: 'duplicate_settlement',
    })
    expect(await balance(buyer.address)).toBe(before - 1000n)
    expect(await localBase(d).chain.client.getBalance({ address: buyer.address })).toBe(0n)
  })

  it('captures part of a hold and voids the rest in one settle; a replay answers the first outcome', async () => {
    const r = req()
    const h = await authorize(r)
    const [b0, s0, o0] = await Promise.all([balance(buyer.address), balance(payTo), balance(operator)])
    const capture = body(r, {
      type: 'capture',
      paymentInfo: h.paymentInfo,
      saltNonce: h.saltNonce,
      amount: '600',
      feeAmount: '0',
      feeReceiver: zeroAddress,
      expectedCapturableAmount: '1000',
      expectedRefundableAmount: '0',
      closeOut: true,
      idempotencyKey: 'order-1:capture',
    })
    const c = await asSeller(capture)
    expect(c, JSON.stringify(c)).toMatchObject({
      success: true,
      amount: '600',
      extra: { operation: 'capture', voided: '400' },
    })
    expect(await balance(payTo)).toBe(s0 + 600n)
    expect(await balance(buyer.address)).toBe(b0 + 400n)
    const again = await asSeller(capture)
    expect(again).toMatchObject({ success: true, transaction: c.transaction, amount: '600', extra: { replayed: true } })
    expect(await balance(payTo)).toBe(s0 + 600n)
    expect(await balance(buyer.address)).toBe(b0 + 400n)
    expect(await balance(operator)).toBe(o0)
  })

  it('voids a hold (a failed request), so the buyer is whole', async () => {
    const b0 = await balance(buyer.address)
    const r = req()
    const h = await authorize(r)
    expect(await balance(buyer.address)).toBe(b0 - 1000n)
    const v = await asSeller(body(r, { type: 'void', paymentInfo: h.paymentInfo, saltNonce: h.saltNonce }))
    expect(v, JSON.stringify(v)).toMatchObject({
      success: true,
      amount: '0',
      extra: { operation: 'void', voided: '1000' },
    })
    expect(await balance(buyer.address)).toBe(b0)
    const twice = await asSeller(body(r, { type: 'void', paymentInfo: h.paymentInfo, saltNonce: h.saltNonce }))
    expect(twice).toMatchObject({ success: true, transaction: v.transaction, extra: { replayed: true } })
  })

  it("captures in full, then refunds what the seller funds; the facilitator's own balance never moves", async () => {
    const r = req()
    const h = await authorize(r)
    const c = await asSeller(
      body(r, {
        type: 'capture',
        paymentInfo: h.paymentInfo,
        saltNonce: h.saltNonce,
        amount: '1000',
        feeAmount: '0',
        feeReceiver: zeroAddress,
        expectedCapturableAmount: '1000',
        expectedRefundableAmount: '0',
      }),
    )
    expect(c).toMatchObject({ success: true, amount: '1000' })
    const [b0, s0, o0] = await Promise.all([balance(buyer.address), balance(payTo), balance(operator)])
    const refund = {
      type: 'refund',
      paymentInfo: h.paymentInfo,
      saltNonce: h.saltNonce,
      amount: '300',
      expectedCapturableAmount: '0',
      expectedRefundableAmount: '1000',
    }
    const unfunded = await asSeller(body(r, refund))
    expect(unfunded).toMatchObject({
      success: false,
      errorReason: 'invalid_auth_capture_evm_refund_funding_unavailable',
    })
    const f = await asSeller(body(r, { ...refund, refundFunding: await funding(300n) }))
    expect(f, JSON.stringify(f)).toMatchObject({ success: true, amount: '300', extra: { operation: 'refund' } })
    expect(await balance(buyer.address)).toBe(b0 + 300n)
    expect(await balance(payTo)).toBe(s0 - 300n)
    expect(await balance(operator)).toBe(o0)
  })

  it('holds through Permit2 for a payer that approved it, and voids', async () => {
    const payer = await evmPayer(d, ['USDC'], '1')
    const chain = localBase(d).chain
    // The reference Permit2 flow's one-time setup: the payer's own approve (so it needs ETH, once).
    await chain.client.request({
      method: 'anvil_setBalance' as never,
      params: [payer.address, `0x${parseEther('1').toString(16)}`] as never,
    })
    const wallet = createWalletClient({ account: payer, chain: chain.client.chain, transport: http(chain.rpcUrl) })
    await chain.client.waitForTransactionReceipt({
      hash: await wallet.writeContract({
        address: usdc().address as Address,
        abi: erc20Abi,
        functionName: 'approve',
        args: [PERMIT2_ADDRESS, maxUint256],
        chain: chain.client.chain,
      }),
      pollingInterval: 20,
    })
    const r = req({ assetTransferMethod: 'permit2' })
    const payload = await pay(r, payer)
    expect(payload.permit2Authorization).toBeDefined()
    const b0 = await balance(payer.address)
    const s = (await settle(d, body(r, payload))).body as SettleResponse & { extra?: Record<string, unknown> }
    expect(s, JSON.stringify(s)).toMatchObject({ success: true, payer: payer.address, amount: '1000' })
    expect(await balance(payer.address)).toBe(b0 - 1000n)
    // An EIP-3009 requirement does not take a Permit2 payload.
    expect((await verify(d, body(req(), payload))).invalidReason).toBe(
      'invalid_auth_capture_evm_payload_method_mismatch',
    )
    const v = await asSeller(body(r, { type: 'void', paymentInfo: s.extra!.paymentInfo, saltNonce: payload.saltNonce }))
    expect(v).toMatchObject({ success: true, extra: { voided: '1000' } })
    expect(await balance(payer.address)).toBe(b0)
  })

  it('advertises a token without ERC-3009 (PUSD) through Permit2 only, and holds and voids it', async () => {
    const pusd = localBase(d).token('PUSD')
    const s = await d.call<{ kinds: Array<{ scheme: string; network: string; extra: Record<string, unknown> }> }>(
      '/facilitator/supported',
    )
    const kind = s.kinds.find(
      (k) => k.scheme === 'auth-capture' && k.network === network() && k.extra.asset === pusd.address,
    )
    expect(kind?.extra).toMatchObject({
      assetTransferMethods: ['permit2'],
      operatorType: 'delegated',
      authCaptureEscrow: AUTH_CAPTURE_V1_1.escrow,
    })
    const payer = await evmPayer(d, ['PUSD'], '1')
    const chain = localBase(d).chain
    await chain.client.request({
      method: 'anvil_setBalance' as never,
      params: [payer.address, `0x${parseEther('1').toString(16)}`] as never,
    })
    const wallet = createWalletClient({ account: payer, chain: chain.client.chain, transport: http(chain.rpcUrl) })
    await chain.client.waitForTransactionReceipt({
      hash: await wallet.writeContract({
        address: pusd.address as Address,
        abi: erc20Abi,
        functionName: 'approve',
        args: [PERMIT2_ADDRESS, maxUint256],
        chain: chain.client.chain,
      }),
      pollingInterval: 20,
    })
    const r = {
      ...req({ assetTransferMethod: 'permit2', name: pusd.name, version: pusd.version }),
      asset: pusd.address,
    }
    const payload = await pay(r, payer)
    expect(payload.permit2Authorization).toBeDefined()
    const b0 = await localBase(d).balance('PUSD', payer.address)
    const held = (await settle(d, body(r, payload))).body as SettleResponse & { extra?: Record<string, unknown> }
    expect(held, JSON.stringify(held)).toMatchObject({ success: true, payer: payer.address, amount: '1000' })
    expect(await localBase(d).balance('PUSD', payer.address)).toBe(b0 - 1000n)
    const v = await asSeller(
      body(r, { type: 'void', paymentInfo: held.extra!.paymentInfo, saltNonce: payload.saltNonce }),
    )
    expect(v).toMatchObject({ success: true, extra: { voided: '1000' } })
    expect(await localBase(d).balance('PUSD', payer.address)).toBe(b0)
  })

  it('charges a chosen amount at most the maximum, terminally (paymentFlow authorization)', async () => {
    const r = req({ paymentFlow: 'authorization', captureMode: undefined })
    const payload = await pay(r)
    // /verify takes the raw client form; /settle needs the seller's completion.
    expect((await verify(d, body(r, payload))).isValid).toBe(true)
    expect(await asSeller(body(r, payload))).toMatchObject({
      success: false,
      errorReason: 'invalid_auth_capture_evm_payload_format',
    })
    const [b0, s0] = await Promise.all([balance(buyer.address), balance(payTo)])
    const completed = { ...payload, amount: '700', feeAmount: '0', feeReceiver: zeroAddress }
    expect((await settle(d, body(r, completed))).body).toMatchObject({
      success: false,
      errorReason: 'invalid_auth_capture_evm_unauthenticated_authorizer_request',
    })
    const c = await asSeller(body(r, completed))
    expect(c, JSON.stringify(c)).toMatchObject({ success: true, amount: '700', extra: { operation: 'charge' } })
    expect(await balance(buyer.address)).toBe(b0 - 700n)
    expect(await balance(payTo)).toBe(s0 + 700n)
    expect(
      await asSeller(
        body(r, {
          type: 'capture',
          paymentInfo: c.extra!.paymentInfo,
          saltNonce: payload.saltNonce,
          amount: '1',
          expectedCapturableAmount: '0',
          expectedRefundableAmount: '700',
        }),
      ),
    ).toMatchObject({ success: false, errorReason: 'invalid_auth_capture_evm_payload_type' })
  })

  it("takes a seller-held authorizer's signatures, each once: the escrow balances they bind cannot recur", async () => {
    const own = privateKeyToAccount(generatePrivateKey())
    const r = req({ receiverAuthorizer: own.address })
    const payload = await pay(r)
    const s = (await settle(d, body(r, payload))).body as SettleResponse & { extra?: Record<string, unknown> }
    expect(s).toMatchObject({ success: true })
    const hash = s.extra!.paymentInfoHash as Hex
    const sign = (amount: bigint, capturable: bigint, refundable: bigint, by = own) =>
      by.signTypedData(
        authorizerTypedData(localBase(d).chain.chainId, operator, {
          type: 'capture',
          version: 'v1.1',
          paymentInfoHash: hash,
          amount,
          fee: 0n,
          feeReceiver: zeroAddress,
          expectedCapturableAmount: capturable,
          expectedRefundableAmount: refundable,
        }) as never,
      )
    const capture = (
      amount: string,
      capturable: string,
      refundable: string,
      authorizerSignature: Hex,
      idempotencyKey?: string,
    ) =>
      body(r, {
        type: 'capture',
        paymentInfo: s.extra!.paymentInfo,
        saltNonce: payload.saltNonce,
        amount,
        feeAmount: '0',
        feeReceiver: zeroAddress,
        expectedCapturableAmount: capturable,
        expectedRefundableAmount: refundable,
        authorizerSignature,
        ...(idempotencyKey ? { idempotencyKey } : {}),
      })
    // No partner key: the seller's own signature is its consent.
    expect((await settle(d, capture('400', '1000', '0', await sign(400n, 1000n, 0n, buyer)))).body).toMatchObject({
      success: false,
      errorReason: 'invalid_auth_capture_evm_authorizer_signature',
    })
    const s0 = await balance(payTo)
    const first = await sign(400n, 1000n, 0n)
    expect((await settle(d, capture('400', '1000', '0', first, 'a'))).body).toMatchObject({
      success: true,
      amount: '400',
    })
    // The same signature under another key: the escrow moved, so it is spent.
    expect((await settle(d, capture('400', '1000', '0', first, 'b'))).body).toMatchObject({
      success: false,
      errorReason: 'invalid_auth_capture_evm_unexpected_payment_state',
    })
    expect((await settle(d, capture('600', '600', '400', await sign(600n, 600n, 400n)))).body).toMatchObject({
      success: true,
      amount: '600',
    })
    expect(await balance(payTo)).toBe(s0 + 1000n)
  })

  it('holds from a smart wallet that does not exist yet (ERC-6492, allow-listed factory); another factory is refused', async () => {
    const chain = localBase(d).chain
    const owner = privateKeyToAccount(generatePrivateKey())
    // The official client signs through a signer whose address is the wallet; the envelope carries its deployment.
    const counterfactual = async (f: typeof allowed) => {
      const address = await chain.client.readContract({
        address: f.address,
        abi: ownedWalletFactoryAbi,
        functionName: 'getAddress',
        args: [owner.address, 1n],
      })
      await d.call('/api/local/faucet', { body: { to: address, token: 'USDC', amount: '1' } })
      const signer = {
        address,
        signTypedData: async (td: never) =>
          serializeErc6492Signature({
            address: f.address,
            data: createAccountData(owner.address, 1n),
            signature: await owner.signTypedData(td),
          }),
      }
      const client = new AuthCaptureEvmScheme(signer as never)
      return {
        address,
        payload: (await client.createPaymentPayload(2, req() as never)).payload as Record<string, unknown>,
      }
    }
    const bad = await counterfactual(stranger)
    expect((await verify(d, body(req(), bad.payload))).invalidReason).toBe(
      'invalid_auth_capture_evm_erc6492_factory_not_allowed',
    )
    const good = await counterfactual(allowed)
    expect(await chain.client.getCode({ address: good.address })).toBeUndefined()
    const s = (await settle(d, body(req(), good.payload))).body
    expect(s, JSON.stringify(s)).toMatchObject({ success: true, payer: good.address, amount: '1000' })
    expect(await chain.client.getCode({ address: good.address })).toMatch(/^0x[0-9a-f]{100,}/)
    expect(await balance(good.address)).toBe(1_000_000n - 1000n)
  })

  it('refuses what the spec refuses', async () => {
    const reason = async (r: PaymentRequirements, payload: Record<string, unknown>) =>
      (await verify(d, body(r, payload))).invalidReason
    const r = req()
    const payload = await pay(r)
    // The maximum the client signed is not the one asked.
    expect(await reason({ ...r, amount: '2000' }, payload)).toBe('invalid_auth_capture_evm_amount_mismatch')
    // The salt does not reopen to the advertised receiver authorizer.
    expect(await reason(r, { ...payload, saltNonce: keccak256(toHex('other')) })).toBe(
      'invalid_auth_capture_evm_salt_binding_mismatch',
    )
    expect(await reason(req({ autoCapture: true }), payload)).toBe('invalid_auth_capture_evm_unsupported_payment_flow')
    expect(await reason(req({ policy: payTo }), payload)).toBe('invalid_auth_capture_evm_unsupported_operator_type')
    expect(await reason(req({ captureAuthorizer: payTo }), payload)).toBe(
      'invalid_auth_capture_evm_operator_not_admitted',
    )
    // A lifecycle request without the seller's authentication (no key, or the buyer's) is refused.
    const h = await authorize(req())
    const voiding = body(r, { type: 'void', paymentInfo: h.paymentInfo, saltNonce: h.saltNonce })
    expect((await settle(d, voiding)).body).toMatchObject({
      success: false,
      errorReason: 'invalid_auth_capture_evm_unauthenticated_authorizer_request',
    })
    const buyerKey = (
      await d.call<{ key: string }>('/api/operator/keys', {
        body: { name: 'buyer', owner: buyer.address },
        headers: d.operatorHeaders(),
      })
    ).key
    expect((await post(d, 'settle', voiding, { 'x-api-key': buyerKey })).body).toMatchObject({
      success: false,
      errorReason: 'invalid_auth_capture_evm_unauthenticated_authorizer_request',
    })
  })
})

/** The seller's ERC-3009 authorization moving `value` to the capture authorizer: what funds a refund. */
async function funding(value: bigint) {
  const authorization = {
    from: payTo,
    to: operator,
    value,
    validAfter: 0n,
    validBefore: nowSeconds() + 600n,
    nonce: keccak256(toHex(`${Math.random()}`)),
  }
  const signature = await seller.signTypedData({
    domain: {
      name: usdc().name,
      version: usdc().version,
      chainId: localBase(d).chain.chainId,
      verifyingContract: usdc().address as Address,
    },
    types: receiveWithAuthorizationTypes,
    primaryType: 'ReceiveWithAuthorization',
    message: authorization,
  })
  return {
    authorization: {
      ...authorization,
      value: value.toString(),
      validAfter: '0',
      validBefore: authorization.validBefore.toString(),
    },
    signature,
  }
}
