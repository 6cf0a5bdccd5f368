import { AuthCaptureEvmScheme } from '@x402/evm/auth-capture/client'
import type { Hex } from 'viem'
import { zeroAddress } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { loadConfig } from '../../../src/config/load.js'
import { AUTH_CAPTURE_V1_1 } from '../../../src/sdk/x402/evm/auth-capture/contracts.js'
import { encodeHeader, headers } from '../../../src/sdk/x402/wire.js'
import type { EvmChain } from '../../chains/evm/chain.js'
import { AGENT_HOLD_LIMITS, holdSettlement, holdTerms, signHold } from './auth-capture.js'
import type { QuoteContext } from './quote.js'
import { x402Quotes } from './x402.js'

const now = 2_000_000_000
const usdc = {
  symbol: 'USDC',
  address: '0x00000000000000000000000000000000000000c0' as Hex,
  decimals: 6,
  eip3009: true,
  permitDomain: { name: 'USD Coin', version: '2' },
}
const signer = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d')
const chain = {
  key: 'local-base',
  chainId: 84532,
  spec: { caip2: 'eip155:84532', chainId: 84532 },
  tokens: { USDC: usdc },
} as unknown as EvmChain
const ctx = (over: Partial<QuoteContext> = {}): QuoteContext => ({
  chain,
  tokens: [usdc],
  signer,
  url: 'http://127.0.0.1/x',
  maxValiditySeconds: 300,
  ...over,
})
const hold = (extra: Record<string, unknown> = {}, over: Record<string, unknown> = {}) => ({
  scheme: 'auth-capture',
  network: 'eip155:84532',
  asset: usdc.address,
  amount: '1000',
  payTo: '0x00000000000000000000000000000000000000b0',
  maxTimeoutSeconds: 120,
  extra: {
    name: 'USD Coin',
    version: '2',
    authCaptureEscrow: AUTH_CAPTURE_V1_1.escrow,
    captureAuthorizer: '0x00000000000000000000000000000000000000a1',
    operatorType: 'delegated',
    receiverAuthorizer: '0x00000000000000000000000000000000000000a2',
    paymentFlow: 'escrow',
    captureMode: 'sync',
    captureDeadline: now + 3600,
    refundDeadline: now + 86_400,
    feeRecipient: zeroAddress,
    minFeeBps: 0,
    maxFeeBps: 0,
    assetTransferMethod: 'eip3009',
    ...extra,
  },
  ...over,
})
const exact = {
  scheme: 'exact',
  network: 'eip155:84532',
  asset: usdc.address,
  amount: '1000',
  payTo: '0x00000000000000000000000000000000000000b0',
  maxTimeoutSeconds: 60,
  extra: { name: 'USD Coin', version: '2' },
}
const required = (accepts: unknown[]) =>
  encodeHeader({ x402Version: 2, accepts, resource: { url: 'http://127.0.0.1/x' } })

afterEach(() => void vi.useRealTimers())

describe('an agent signs an auth-capture hold', () => {
  it('exactly as the official client (@x402/evm/auth-capture/client 2.27.0) does, for the same salt and second', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(now * 1000)
    const r = hold()
    const theirs = (
      await new AuthCaptureEvmScheme(signer as never).createPaymentPayload(2, r as never, undefined as never)
    ).payload as Record<string, unknown>
    const { terms, bound } = holdTerms(ctx(), r as never, now, theirs.saltNonce as Hex)
    expect(bound).toBe(true)
    const ours = await signHold(ctx(), r as never, terms, bound, theirs.saltNonce as Hex)
    expect(ours.payload).toEqual(theirs)
    expect(ours.nonce).toBe((theirs.authorization as { nonce: string }).nonce)
  })

  it("clamps the authorization's validity to pay.validitySeconds, and refuses deadlines beyond the platform's maxima before signing", () => {
    expect(
      holdTerms(ctx(), hold({}, { maxTimeoutSeconds: 86_400 }) as never, now, '0x01').terms.info.preApprovalExpiry,
    ).toBe(now + 300)
    expect(holdTerms(ctx({ maxValiditySeconds: 60 }), hold() as never, now, '0x01').terms.info.preApprovalExpiry).toBe(
      now + 60,
    )
    const ok = holdTerms(
      ctx(),
      hold({
        captureDeadline: now + AGENT_HOLD_LIMITS.captureDeadlineSeconds,
        refundDeadline: now + AGENT_HOLD_LIMITS.refundDeadlineSeconds,
      }) as never,
      now,
      '0x01',
    )
    expect(ok.terms.info).toMatchObject({
      authorizationExpiry: now + 7 * 86_400,
      refundExpiry: now + 30 * 86_400,
      maxAmount: 1000n,
      payer: signer.address,
    })
    const refused = expect.objectContaining({ code: 'AUTH_CAPTURE_TERMS_REFUSED' })
    expect(() => holdTerms(ctx(), hold({ captureDeadline: now + 7 * 86_400 + 1 }) as never, now, '0x01')).toThrow(
      refused,
    )
    expect(() => holdTerms(ctx(), hold({ refundDeadline: now + 30 * 86_400 + 1 }) as never, now, '0x01')).toThrow(
      refused,
    )
    // The capture deadline must come after the authorization's validity, the refund deadline not before it.
    expect(() => holdTerms(ctx(), hold({ captureDeadline: now + 100 }) as never, now, '0x01')).toThrow(refused)
    expect(() => holdTerms(ctx(), hold({ refundDeadline: now + 1000 }) as never, now, '0x01')).toThrow(refused)
    expect(() => holdTerms(ctx(), hold({ maxFeeBps: 10_001 }) as never, now, '0x01')).toThrow(refused)
    expect(() => holdTerms(ctx(), hold({ minFeeBps: 5, maxFeeBps: 1 }) as never, now, '0x01')).toThrow(refused)
  })
})

describe('scheme preference', () => {
  it('auth-capture before exact by default, exact first when the setting is off, only the one a request names', () => {
    const t = Math.floor(Date.now() / 1000)
    const both = required([exact, hold({ captureDeadline: t + 3600, refundDeadline: t + 86_400 })])
    const first = (c: QuoteContext) =>
      x402Quotes(c, both, undefined)!.quotes.map((q) => (q.hold ? 'auth-capture' : 'exact'))
    expect(first(ctx())).toEqual(['auth-capture', 'exact'])
    expect(first(ctx({ scheme: { preferAuthCapture: true } }))).toEqual(['auth-capture', 'exact'])
    expect(first(ctx({ scheme: { preferAuthCapture: false } }))).toEqual(['exact', 'auth-capture'])
    expect(first(ctx({ scheme: { preferAuthCapture: false, only: 'auth-capture' } }))).toEqual(['auth-capture'])
    expect(first(ctx({ scheme: { preferAuthCapture: true, only: 'exact' } }))).toEqual(['exact'])
  })

  it('pay.preferAuthCapture: on by default, off by PARX_PAY_PREFER_AUTH_CAPTURE or the file', () => {
    expect(loadConfig({ env: {}, file: {} }).pay.preferAuthCapture).toBe(true)
    expect(loadConfig({ env: { PARX_PAY_PREFER_AUTH_CAPTURE: 'false' }, file: {} }).pay.preferAuthCapture).toBe(false)
    expect(loadConfig({ env: {}, file: { pay: { preferAuthCapture: false } } }).pay.preferAuthCapture).toBe(false)
  })

  it('a hold asking too much is refused when nothing else asked for is payable, else the other offer is taken', () => {
    const greedy = hold({
      captureDeadline: Math.floor(Date.now() / 1000) + 365 * 86_400,
      refundDeadline: Math.floor(Date.now() / 1000) + 366 * 86_400,
    })
    expect(() => x402Quotes(ctx(), required([greedy]), undefined)).toThrow(
      expect.objectContaining({ code: 'AUTH_CAPTURE_TERMS_REFUSED' }),
    )
    expect(x402Quotes(ctx(), required([greedy, exact]), undefined)!.quotes.map((q) => q.hold === undefined)).toEqual([
      true,
    ])
    expect(() =>
      x402Quotes(
        ctx({ scheme: { preferAuthCapture: true, only: 'auth-capture' } }),
        required([greedy, exact]),
        undefined,
      ),
    ).toThrow(expect.objectContaining({ code: 'AUTH_CAPTURE_TERMS_REFUSED' }))
  })
})

describe("the seller's answer for a hold", () => {
  const answer = (s: unknown) => new Response('', { headers: { [headers.response]: encodeHeader(s) } })
  const tx = `0x${'ab'.repeat(32)}`
  it('reads a capture (the rest voided), a void, and an authorize alone', () => {
    expect(
      holdSettlement(
        answer({
          success: true,
          transaction: tx,
          network: 'eip155:84532',
          amount: '400',
          extra: { operation: 'capture', voided: '600' },
        }),
        1000n,
      ),
    ).toEqual({ transaction: tx, outcome: { operation: 'capture', captured: 400n, voided: 600n } })
    expect(
      holdSettlement(
        answer({
          success: true,
          transaction: tx,
          network: 'eip155:84532',
          extra: { operation: 'void', voided: '1000' },
        }),
        1000n,
      ).outcome,
    ).toEqual({ operation: 'void', captured: 0n, voided: 1000n })
    expect(holdSettlement(answer({ success: true, transaction: tx, network: 'eip155:84532' }), 1000n).outcome).toEqual({
      operation: 'authorize',
      captured: 0n,
      voided: 0n,
    })
    // A seller claiming more voided than held is not believed on that point.
    expect(
      holdSettlement(
        answer({
          success: true,
          transaction: tx,
          network: 'eip155:84532',
          amount: '400',
          extra: { operation: 'capture', voided: '9000' },
        }),
        1000n,
      ).outcome,
    ).toEqual({ operation: 'capture', captured: 400n, voided: 0n })
  })
})
