import type { AnyPaymentPayload, PaymentRequirements, PaymentRequirementsV1 } from './types.js'

/** HTTP header names of both protocol versions. */
export const headers = {
  required: 'PAYMENT-REQUIRED',
  signature: 'PAYMENT-SIGNATURE',
  response: 'PAYMENT-RESPONSE',
  v1Payment: 'X-PAYMENT',
  v1Response: 'X-PAYMENT-RESPONSE',
} as const

/** x402 headers carry base64 of UTF-8 JSON. */
export function encodeHeader(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64')
}

/** The decoded JSON, or undefined when the header is not base64 JSON of an object. */
export function decodeHeader<T = Record<string, unknown>>(value: string | undefined | null): T | undefined {
  if (!value || !/^[A-Za-z0-9+/=_-]+$/.test(value.trim())) return undefined
  try {
    const parsed = JSON.parse(Buffer.from(value.trim(), 'base64').toString('utf8')) as unknown
    return isRecord(parsed) ? (parsed as T) : undefined
  } catch {
    return undefined
  }
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/**
 * One payment as the facilitator reasons about it, whichever version sent it: the scheme and
 * network the payer chose, their signed payload, and the seller's terms with `amount` in base units.
 */
export type Payment = {
  version: number
  scheme: string
  network: string
  payload: Record<string, unknown>
  requirements: PaymentRequirements
  /** The payload's x402 v2 `extensions` (e.g. eip2612GasSponsoring), when it has any. */
  extensions?: Record<string, unknown>
  /**
   * Who asked, where a scheme needs to know (batch-settlement's delegated refund): the wallet the
   * caller's partner key is bound to, read only when asked. Never from the body.
   */
  caller?: { wallet(): Promise<string | undefined> }
}

/**
 * Reads `{paymentPayload, paymentRequirements}` of either version into a Payment. Accepts the
 * older spellings too (docs/facilitator.md "x402 facilitator") (`accepted` on any version, `maxAmountRequired` beside
 * `amount`).
 * Returns a string naming the first malformed field instead when something is missing.
 */
export function toPayment(
  paymentPayload: Record<string, unknown>,
  paymentRequirements: Record<string, unknown>,
  x402Version?: unknown,
): Payment | { malformed: 'payload' | 'requirements'; field: string } {
  const p = paymentPayload as Partial<AnyPaymentPayload> & {
    accepted?: Partial<PaymentRequirements>
    scheme?: string
    network?: string
  }
  const version =
    typeof p.x402Version === 'number' ? p.x402Version : typeof x402Version === 'number' ? x402Version : NaN
  const accepted = isRecord(p.accepted) ? p.accepted : undefined
  const scheme = accepted?.scheme ?? p.scheme
  const network = accepted?.network ?? p.network
  if (!Number.isInteger(version)) return { malformed: 'payload', field: 'x402Version' }
  if (typeof scheme !== 'string') return { malformed: 'payload', field: 'scheme' }
  if (typeof network !== 'string') return { malformed: 'payload', field: 'network' }
  if (!isRecord(p.payload)) return { malformed: 'payload', field: 'payload' }

  const r = paymentRequirements as Partial<PaymentRequirements & PaymentRequirementsV1>
  const amount = r.amount ?? r.maxAmountRequired
  const str = (v: unknown) => typeof v === 'string' && v.length > 0
  for (const [field, value] of [
    ['scheme', r.scheme],
    ['network', r.network],
    ['asset', r.asset],
    ['payTo', r.payTo],
  ] as const) {
    if (!str(value)) return { malformed: 'requirements', field }
  }
  if (typeof amount !== 'string' || !/^\d+$/.test(amount)) return { malformed: 'requirements', field: 'amount' }
  const timeout = r.maxTimeoutSeconds ?? 60
  // Zero only for batch-settlement's claim and settle: the official channel manager's requirements for batched
  // operations carry 0.
  const tooShort = r.scheme === 'batch-settlement' ? timeout < 0 : timeout <= 0
  if (typeof timeout !== 'number' || !Number.isFinite(timeout) || tooShort)
    return { malformed: 'requirements', field: 'maxTimeoutSeconds' }
  const extensions = (p as { extensions?: unknown }).extensions
  return {
    version,
    scheme,
    network,
    payload: p.payload,
    ...(isRecord(extensions) ? { extensions } : {}),
    requirements: {
      scheme: r.scheme!,
      network: r.network!,
      asset: r.asset!,
      amount,
      payTo: r.payTo!,
      maxTimeoutSeconds: timeout,
      extra: isRecord(r.extra) ? r.extra : {},
    },
  }
}

/** v2 requirements as a v1 client expects them (legacy network name, `maxAmountRequired`, resource fields). */
export function toV1Requirements(
  r: PaymentRequirements,
  legacyNetwork: string,
  resource: { url: string; description?: string; mimeType?: string },
): PaymentRequirementsV1 {
  return {
    scheme: r.scheme,
    network: legacyNetwork,
    maxAmountRequired: r.amount,
    resource: resource.url,
    description: resource.description ?? '',
    mimeType: resource.mimeType ?? '',
    payTo: r.payTo,
    maxTimeoutSeconds: r.maxTimeoutSeconds,
    asset: r.asset,
    extra: r.extra,
  }
}
