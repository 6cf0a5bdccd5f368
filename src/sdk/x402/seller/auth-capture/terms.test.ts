import { AuthCaptureEvmScheme } from '@x402/evm/auth-capture/client'
import { keccak256, toHex, zeroAddress } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { AUTH_CAPTURE_V1_1 } from '../../evm/auth-capture/contracts.js'
import { signatureNonce } from '../../evm/auth-capture/payment-info.js'
import { collectedPayment } from './payment.js'
import { AUTH_CAPTURE_LIMITS, authCaptureRequirements, heldRequirements } from './terms.js'

const kind = {
  asset: '0x00000000000000000000000000000000000000c0',
  name: 'USD Coin',
  version: '2',
  decimals: 6,
  captureAuthorizer: '0x00000000000000000000000000000000000000a1',
  receiverAuthorizer: '0x00000000000000000000000000000000000000a2',
  authCaptureEscrow: AUTH_CAPTURE_V1_1.escrow,
}
const price = {
  network: 'local-base',
  asset: 'USDC',
  amount: '1000',
  payTo: '0x00000000000000000000000000000000000000b0',
}
const now = 2_000_000_000

describe('auth-capture offers', () => {
  it("states the facilitator's operator and authorizer, escrow flow, no fees, and deadlines from now", () => {
    const r = authCaptureRequirements(price, 'eip155:84532', kind, now)
    expect(r).toMatchObject({ scheme: 'auth-capture', asset: kind.asset, amount: '1000', maxTimeoutSeconds: 120 })
    expect(r.extra).toEqual({
      name: 'USD Coin',
      version: '2',
      authCaptureEscrow: AUTH_CAPTURE_V1_1.escrow,
      captureAuthorizer: kind.captureAuthorizer,
      operatorType: 'delegated',
      receiverAuthorizer: kind.receiverAuthorizer,
      paymentFlow: 'escrow',
      captureMode: 'sync',
      captureDeadline: now + 3600,
      refundDeadline: now + 86_400,
      feeRecipient: zeroAddress,
      minFeeBps: 0,
      maxFeeBps: 0,
      assetTransferMethod: 'eip3009',
    })
  })

  it('clamps the deadlines to the documented maxima, and the refund deadline to no earlier than the capture deadline', () => {
    const long = authCaptureRequirements(
      { ...price, captureDeadlineSeconds: 30 * 86_400, refundDeadlineSeconds: 365 * 86_400 },
      'eip155:84532',
      kind,
      now,
    )
    expect(long.extra.captureDeadline).toBe(now + AUTH_CAPTURE_LIMITS.captureDeadlineSeconds.max)
    expect(long.extra.refundDeadline).toBe(now + AUTH_CAPTURE_LIMITS.refundDeadlineSeconds.max)
    const short = authCaptureRequirements(
      { ...price, captureDeadlineSeconds: 5, refundDeadlineSeconds: 1 },
      'eip155:84532',
      kind,
      now,
    )
    expect(short.extra.captureDeadline).toBe(now + 120 + AUTH_CAPTURE_LIMITS.marginSeconds)
    expect(short.extra.refundDeadline).toBe(short.extra.captureDeadline)
  })

  it('is never offered without a receiver authorizer (nothing could capture or void in the request)', () => {
    expect(() =>
      authCaptureRequirements(price, 'eip155:84532', { ...kind, receiverAuthorizer: undefined }, now),
    ).toThrow(expect.objectContaining({ code: 'AUTH_CAPTURE_AUTHORIZER_NOT_CONFIGURED' }))
    expect(() =>
      authCaptureRequirements(price, 'eip155:84532', { ...kind, receiverAuthorizer: zeroAddress }, now),
    ).toThrow(expect.objectContaining({ code: 'AUTH_CAPTURE_AUTHORIZER_NOT_CONFIGURED' }))
  })
})

describe('the terms a paid request is held under', () => {
  const offered = authCaptureRequirements(price, 'eip155:84532', kind, now)
  it('takes the deadlines a 402 of ours named a while ago', () => {
    const fresh = authCaptureRequirements(price, 'eip155:84532', kind, now + 30)
    expect(heldRequirements(fresh, offered, now + 30)).toEqual(offered)
  })
  it('refuses a later capture deadline, one too near, another gap to the refund deadline, or any other term changed', () => {
    const e = offered.extra as { captureDeadline: number; refundDeadline: number }
    const reason = (extra: Record<string, unknown>, at = now) =>
      (heldRequirements(offered, { ...offered, extra: { ...offered.extra, ...extra } }, at) as { reason?: string })
        .reason
    expect(reason({ captureDeadline: e.captureDeadline + 1, refundDeadline: e.refundDeadline + 1 })).toBe(
      'invalid_auth_capture_evm_deadline_ordering',
    )
    expect(reason({}, e.captureDeadline - 120)).toBe('invalid_auth_capture_evm_deadline_ordering')
    expect(reason({ refundDeadline: e.refundDeadline + 1 })).toBe('invalid_auth_capture_evm_deadline_ordering')
    expect(reason({ receiverAuthorizer: '0x00000000000000000000000000000000000000a3' })).toBe(
      'invalid_auth_capture_evm_extra',
    )
    expect(reason({ captureMode: 'deferred' })).toBe('invalid_auth_capture_evm_extra')
    expect(reason({ maxFeeBps: 100 })).toBe('invalid_auth_capture_evm_extra')
    expect(reason({})).toBeUndefined()
  })
})

describe('the hold the seller records', () => {
  it('is the PaymentInfo the official client signed for (its nonce is our signatureNonce)', async () => {
    const payer = privateKeyToAccount(keccak256(toHex('auth-capture seller terms payer')))
    const r = authCaptureRequirements(price, 'eip155:84532', kind, Math.floor(Date.now() / 1000))
    r.payTo = price.payTo
    const { payload } = await new AuthCaptureEvmScheme({
      address: payer.address,
      signTypedData: (m: unknown) => payer.signTypedData(m as never),
    } as never).createPaymentPayload(2, r as never)
    const c = collectedPayment(r, payload)!
    expect(c.payer).toBe(payer.address)
    expect(signatureNonce(c.info, 84532, AUTH_CAPTURE_V1_1.escrow)).toBe(
      (payload as { authorization: { nonce: string } }).authorization.nonce,
    )
    expect(c.saltNonce).toBe((payload as { saltNonce: string }).saltNonce)
    expect(collectedPayment(r, { ...payload, saltNonce: undefined })).toBeUndefined()
  })
})
