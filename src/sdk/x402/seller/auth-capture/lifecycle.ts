import { type Address, type Hex, keccak256, toHex, zeroAddress } from 'viem'
import { BaseError } from '../../../../errors/index.js'
import { receiveWithAuthorizationTypes } from '../../../eip712.js'
import { reasons } from '../../reasons.js'
import type { SettleResponse } from '../../types.js'
import type { SellerFacilitator } from '../facilitator-client.js'
import { chainIdOf } from './payment.js'
import { balancesOf, type HoldRecord, type HoldStore } from './store.js'

/**
 * What every lifecycle call needs: the facilitator (with the seller's partner key, bound to payTo) and the hold store.
 */
export type HoldContext = { facilitator: SellerFacilitator; store: HoldStore }

/** A settle that could not be read answers as a refusal, never a throw: the hold's state is unchanged. */
const settle = (f: SellerFacilitator, body: unknown): Promise<SettleResponse> =>
  f.settle(body).catch(
    (e: Error): SettleResponse => ({
      success: false,
      errorReason: reasons.unexpectedSettleError,
      errorMessage: e.message,
      transaction: '',
      network: '',
    }),
  )

const lifecycleBody = (r: HoldRecord, payload: Record<string, unknown>) => ({
  x402Version: 2,
  paymentPayload: {
    x402Version: 2,
    accepted: r.requirements,
    payload: { paymentInfo: r.paymentInfo, saltNonce: r.saltNonce, ...payload },
  },
  paymentRequirements: r.requirements,
})

async function load(store: HoldStore, id: Hex): Promise<HoldRecord> {
  const r = await store.get(id)
  if (!r) throw new BaseError('HOLD_NOT_FOUND', `no auth-capture payment ${id} is held here`)
  return r
}

/**
 * Captures `amount` of a hold (default: all it still holds) for the seller; `closeOut` voids the
 * rest in the same transaction (the binding's one-settle partial close-out), otherwise the rest
 * stays held for a later capture (captureMode deferred). The idempotency key names the hold's
 * state, so a retry after a crash is answered the first capture, never a second one.
 *
 * @example
 * await captureHold({ facilitator, store }, id, { amount: '600', closeOut: true })
 */
export async function captureHold(
  c: HoldContext,
  id: Hex,
  o: { amount?: string; closeOut?: boolean } = {},
): Promise<SettleResponse> {
  const r = await load(c.store, id)
  const { capturable, refundable } = balancesOf(r)
  const amount = o.amount === undefined ? capturable : BigInt(o.amount)
  if (capturable === 0n || amount <= 0n || amount > capturable) {
    throw new BaseError(
      'HOLD_AMOUNT_INVALID',
      `the payment holds ${capturable}; a capture takes more than 0 and at most that`,
    )
  }
  const closeOut = o.closeOut === true && amount < capturable
  const result = await settle(
    c.facilitator,
    lifecycleBody(r, {
      type: 'capture',
      amount: amount.toString(),
      feeAmount: '0',
      feeReceiver: zeroAddress,
      expectedCapturableAmount: capturable.toString(),
      expectedRefundableAmount: refundable.toString(),
      ...(closeOut ? { closeOut: true } : {}),
      idempotencyKey: `capture:${r.captured}:${r.voided}:${r.refunded}`,
    }),
  )
  if (result.success) {
    const voided = closeOut ? capturable - amount : 0n
    const captured = BigInt(r.captured) + amount
    await c.store.update(id, r.version, {
      captured: captured.toString(),
      voided: (BigInt(r.voided) + voided).toString(),
      status: amount + voided === capturable ? 'captured' : 'held',
      captureTransaction: result.transaction,
      updatedAt: Date.now(),
    })
  }
  return result
}

/** Returns all a hold still holds to the buyer (a failed handler, or a hold the seller will not capture). */
export async function voidHold(c: HoldContext, id: Hex): Promise<SettleResponse> {
  const r = await load(c.store, id)
  const { capturable } = balancesOf(r)
  const result = await settle(c.facilitator, lifecycleBody(r, { type: 'void', idempotencyKey: `void:${r.captured}` }))
  if (result.success) {
    await c.store.update(id, r.version, {
      voided: (BigInt(r.voided) + capturable).toString(),
      status: BigInt(r.captured) > 0n ? 'captured' : 'voided',
      updatedAt: Date.now(),
    })
  } else if (result.errorReason === reasons.acZeroAuthorization && r.status === 'authorizing') {
    // The authorize never landed (a crash between asking and the answer): nothing is held.
    await c.store.update(id, r.version, { status: 'failed', updatedAt: Date.now() })
  }
  return result
}

/** Who funds a refund: the payTo wallet, signing an ERC-3009 ReceiveWithAuthorization (no ETH needed). */
export type RefundSigner = { address: Address; signTypedData(td: never): Promise<Hex> }

/**
 * Refunds `amount` of what was captured (before the refund deadline). The escrow's refund
 * collector pulls from the capture authorizer, so the seller funds it: `signer` (payTo's key)
 * signs the token's ReceiveWithAuthorization of exactly `amount` to the capture authorizer, which
 * the facilitator takes in, approves and refunds in one transaction.
 *
 * @example
 * await refundHold({ facilitator, store }, id, { amount: '300', signer: payToAccount })
 */
export async function refundHold(
  c: HoldContext,
  id: Hex,
  o: { amount?: string; signer: RefundSigner; validitySeconds?: number },
): Promise<SettleResponse> {
  const r = await load(c.store, id)
  const { capturable, refundable } = balancesOf(r)
  const amount = o.amount === undefined ? refundable : BigInt(o.amount)
  if (amount <= 0n || amount > refundable)
    throw new BaseError(
      'HOLD_AMOUNT_INVALID',
      `the payment has ${refundable} captured and not refunded; a refund returns more than 0 and at most that`,
    )
  if (r.refundDeadline <= Math.floor(Date.now() / 1000))
    throw new BaseError(
      'REFUND_DEADLINE_PASSED',
      `the refund deadline ${new Date(r.refundDeadline * 1000).toISOString()} has passed`,
    )
  const e = r.requirements.extra
  const operator = e.captureAuthorizer as Address
  const validBefore = BigInt(Math.floor(Date.now() / 1000) + (o.validitySeconds ?? 600))
  // A fresh nonce per attempt; the idempotency key (the hold's state) keeps a retry from refunding twice.
  const authorization = {
    from: r.payTo as Address,
    to: operator,
    value: amount,
    validAfter: 0n,
    validBefore,
    nonce: keccak256(toHex(`${id}:${r.refunded}:${Date.now()}:${Math.random()}`)),
  }
  const signature = await o.signer.signTypedData({
    domain: {
      name: String(e.name),
      version: String(e.version),
      chainId: chainIdOf(r.network)!,
      verifyingContract: r.requirements.asset as Address,
    },
    types: receiveWithAuthorizationTypes,
    primaryType: 'ReceiveWithAuthorization',
    message: authorization,
  } as never)
  const result = await settle(
    c.facilitator,
    lifecycleBody(r, {
      type: 'refund',
      amount: amount.toString(),
      expectedCapturableAmount: capturable.toString(),
      expectedRefundableAmount: refundable.toString(),
      idempotencyKey: `refund:${r.captured}:${r.refunded}`,
      refundFunding: {
        authorization: {
          ...authorization,
          value: amount.toString(),
          validAfter: '0',
          validBefore: validBefore.toString(),
        },
        signature,
      },
    }),
  )
  if (result.success)
    await c.store.update(id, r.version, { refunded: (BigInt(r.refunded) + amount).toString(), updatedAt: Date.now() })
  return result
}
