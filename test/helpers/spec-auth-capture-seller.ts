import express from 'express'
import { type Address, type Hex, keccak256, toHex, zeroAddress } from 'viem'
import { listen } from './x402-buyers.js'

/**
 * One paid GET route of the spec seller: its maximum, what it captures when it serves (the maximum
 * unless `charge`), whether its handler fails (status 500: the hold is voided), and `deferred` to
 * answer on the hold and capture later.
 */
export type SpecRoute = {
  amount: string
  charge?: string
  fails?: boolean
  deferred?: boolean
  captureDeadlineSeconds?: number
}

/** What a deferred server persists with each hold to author its lifecycle settles (the binding: paymentInfo and saltNonce). */
export type SpecHold = {
  requirements: Record<string, unknown>
  paymentInfo: Record<string, unknown>
  saltNonce: string
  capturable: bigint
  refundable: bigint
}

/** payTo's key, which funds refunds by signing (any viem account). */
export type RefundSigner = { signTypedData(td: any): Promise<Hex> }

export type SpecSeller = {
  url: string
  holds: Map<string, SpecHold>
  /** The raw lifecycle settle this seller sends (so a test can send one twice). */
  lifecycle(id: string, payload: Record<string, unknown>): Promise<Record<string, any>>
  capture(id: string, amount: bigint, o?: { closeOut?: boolean; idempotencyKey?: string }): Promise<Record<string, any>>
  refund(id: string, amount: bigint, signer: RefundSigner): Promise<Record<string, any>>
  close(): Promise<void>
}

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64')
const unb64 = (s: string) => JSON.parse(Buffer.from(s, 'base64').toString('utf8'))
/** Key-order independent JSON, to recognise requirements this seller wrote. */
const canonical = (v: unknown): string =>
  Array.isArray(v)
    ? `[${v.map(canonical).join(',')}]`
    : v && typeof v === 'object'
      ? `{${Object.keys(v)
          .sort()
          .map((k) => `${JSON.stringify(k)}:${canonical((v as any)[k])}`)
          .join(',')}}`
      : JSON.stringify(v)

/**
 * A minimal x402 auth-capture seller written from the spec (scheme_auth_capture.md's server
 * lifecycle and its EVM binding), since @x402/express 2.27 has no auth-capture server scheme. It
 * uses nothing of parx but the facilitator's HTTP surface: the offer is built from /supported's
 * auth-capture kind (its capture authorizer as the delegated operator, its receiver authorizer);
 * a paid request is verified and its maximum held (`/settle`, the authorize) before the handler
 * runs, then captured (in full, or in part with `closeOut` voiding the rest in the same settle) or
 * voided when the handler fails. Lifecycle settles carry the seller's partner key (its out-of-band
 * authentication, bound to payTo) and an `idempotencyKey`.
 */
export async function specAuthCaptureSeller(o: {
  facilitator: string
  apiKey: string
  network: string
  payTo: Address
  asset: Address
  routes: Record<string, SpecRoute>
}): Promise<SpecSeller> {
  const supported = (await (await fetch(`${o.facilitator}/supported`)).json()) as {
    kinds: Array<{ scheme: string; network: string; extra: Record<string, unknown> }>
  }
  const kind = supported.kinds.find(
    (k) =>
      k.scheme === 'auth-capture' &&
      k.network === o.network &&
      String(k.extra.asset).toLowerCase() === o.asset.toLowerCase(),
  )
  if (!kind) throw new Error(`the facilitator offers no auth-capture for ${o.asset} on ${o.network}`)
  const issued = new Set<string>()
  const holds = new Map<string, SpecHold>()
  const applied = new Set<string>()
  const post = async (op: 'verify' | 'settle', body: unknown) => {
    const r = await fetch(`${o.facilitator}/${op}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': o.apiKey },
      body: JSON.stringify(body),
    })
    return (await r.json()) as Record<string, any>
  }
  const body = (requirements: unknown, payload: unknown) => ({
    x402Version: 2,
    paymentPayload: { x402Version: 2, accepted: requirements, payload },
    paymentRequirements: requirements,
  })
  const offer = (route: SpecRoute) => {
    const now = Math.floor(Date.now() / 1000)
    const captureDeadline = now + (route.captureDeadlineSeconds ?? 3600)
    const r = {
      scheme: 'auth-capture',
      network: o.network,
      amount: route.amount,
      asset: o.asset,
      payTo: o.payTo,
      maxTimeoutSeconds: 60,
      extra: {
        name: kind.extra.name,
        version: kind.extra.version,
        authCaptureEscrow: kind.extra.authCaptureEscrow,
        captureAuthorizer: kind.extra.captureAuthorizer,
        operatorType: 'delegated',
        receiverAuthorizer: kind.extra.receiverAuthorizer,
        paymentFlow: 'escrow',
        captureMode: route.deferred ? 'deferred' : 'sync',
        captureDeadline,
        refundDeadline: captureDeadline + 3600,
        feeRecipient: zeroAddress,
        minFeeBps: 0,
        maxFeeBps: 0,
      },
    }
    issued.add(canonical(r))
    return r
  }
  const lifecycle = async (id: string, payload: Record<string, unknown>) => {
    const h = holds.get(id)!
    const s = await post(
      'settle',
      body(h.requirements, { paymentInfo: h.paymentInfo, saltNonce: h.saltNonce, ...payload }),
    )
    // A replayed answer of a settle already applied here changes nothing (a seller that lost the first answer applies it now).
    if (s.success && applied.has(`${id}:${s.transaction}`)) return s
    if (s.success) applied.add(`${id}:${s.transaction}`)
    if (s.success && payload.type === 'capture') {
      const voided = BigInt(s.extra.voided ?? 0)
      holds.set(id, {
        ...h,
        capturable: h.capturable - BigInt(s.amount) - voided,
        refundable: h.refundable + BigInt(s.amount),
      })
    }
    if (s.success && payload.type === 'void') holds.set(id, { ...h, capturable: 0n })
    if (s.success && payload.type === 'refund') holds.set(id, { ...h, refundable: h.refundable - BigInt(s.amount) })
    return s
  }
  const capture = (id: string, amount: bigint, c: { closeOut?: boolean; idempotencyKey?: string } = {}) => {
    const h = holds.get(id)!
    return lifecycle(id, {
      type: 'capture',
      amount: amount.toString(),
      feeAmount: '0',
      feeReceiver: zeroAddress,
      expectedCapturableAmount: h.capturable.toString(),
      expectedRefundableAmount: h.refundable.toString(),
      ...(c.closeOut ? { closeOut: true } : {}),
      idempotencyKey: c.idempotencyKey ?? `${id}:capture:${h.capturable}:${h.refundable}`,
    })
  }

  /**
   * A refund, funded as the binding's "Refund funding" asks: payTo signs the token's
   * ReceiveWithAuthorization of exactly the amount to the payment's operator (the capture
   * authorizer), which the facilitator takes in and refunds in one transaction; payTo needs no ETH.
   */
  const refund = async (id: string, amount: bigint, signer: RefundSigner) => {
    const h = holds.get(id)!
    const extra = h.requirements.extra as Record<string, unknown>
    const validBefore = BigInt(Math.floor(Date.now() / 1000) + 600)
    const authorization = {
      from: o.payTo,
      to: h.paymentInfo.operator as Address,
      value: amount,
      validAfter: 0n,
      validBefore,
      nonce: keccak256(toHex(`${id}:${h.refundable}:${Math.random()}`)),
    }
    const signature = await signer.signTypedData({
      domain: {
        name: String(extra.name),
        version: String(extra.version),
        chainId: Number(o.network.split(':')[1]),
        verifyingContract: o.asset,
      },
      types: {
        ReceiveWithAuthorization: [
          { name: 'from', type: 'address' },
          { name: 'to', type: 'address' },
          { name: 'value', type: 'uint256' },
          { name: 'validAfter', type: 'uint256' },
          { name: 'validBefore', type: 'uint256' },
          { name: 'nonce', type: 'bytes32' },
        ],
      },
      primaryType: 'ReceiveWithAuthorization',
      message: authorization,
    })
    return lifecycle(id, {
      type: 'refund',
      amount: amount.toString(),
      expectedCapturableAmount: h.capturable.toString(),
      expectedRefundableAmount: h.refundable.toString(),
      idempotencyKey: `${id}:refund:${h.refundable}`,
      refundFunding: {
        authorization: {
          ...authorization,
          value: amount.toString(),
          validAfter: '0',
          validBefore: validBefore.toString(),
        },
        signature,
      },
    })
  }

  const app = express()
  for (const [path, route] of Object.entries(o.routes)) {
    app.get(path, async (req, res) => {
      const header = req.header('payment-signature')
      const refuse = (error: string) => {
        res.setHeader(
          'PAYMENT-REQUIRED',
          b64({
            x402Version: 2,
            error,
            resource: { url: `${req.protocol}://${req.get('host')}${req.originalUrl}` },
            accepts: [offer(route)],
          }),
        )
        res.status(402).json({})
      }
      if (!header) return refuse('payment required')
      const payment = unb64(header) as { accepted: Record<string, unknown>; payload: Record<string, unknown> }
      // Only requirements this seller wrote: the buyer signed their deadlines.
      if (!issued.has(canonical(payment.accepted))) return refuse('not an offer of this seller')
      const requirements = payment.accepted
      const v = await post('verify', body(requirements, payment.payload))
      if (!v.isValid) return refuse(v.invalidReason)
      const held = await post('settle', body(requirements, payment.payload))
      if (!held.success) return refuse(held.errorReason)
      const id = held.extra.paymentInfoHash as string
      holds.set(id, {
        requirements,
        paymentInfo: held.extra.paymentInfo,
        saltNonce: String(payment.payload.saltNonce),
        capturable: BigInt(held.amount),
        refundable: 0n,
      })
      if (route.fails) {
        const voided = await lifecycle(id, { type: 'void', idempotencyKey: `${id}:void` })
        res.setHeader('PAYMENT-RESPONSE', b64(voided))
        return void res.status(500).json({ error: 'the handler failed' })
      }
      if (route.deferred) {
        res.setHeader('PAYMENT-RESPONSE', b64(held))
        return void res.json({ held: held.amount })
      }
      const amount = BigInt(route.charge ?? route.amount)
      const captured = await capture(id, amount, { closeOut: amount < BigInt(route.amount) })
      res.setHeader('PAYMENT-RESPONSE', b64(captured))
      res.status(captured.success ? 200 : 502).json({ served: path, captured: captured.amount })
    })
  }
  const listening = await listen(app)
  return { ...listening, holds, lifecycle, capture, refund }
}
