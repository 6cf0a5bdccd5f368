import { BaseError } from '../../../errors/base.js'
import type { PaymentStatus, TransactionStatus } from '../status.js'
import type { SettleResponse, SupportedResponse, VerifyResponse } from '../types.js'

export type FacilitatorClientOptions = {
  /** The facilitator's base URL, e.g. http://127.0.0.1:8420/facilitator. */
  url: string
  /** Partner key, sent as X-API-Key: required for mainnet networks (docs/facilitator.md "x402 facilitator"). */
  apiKey?: string
  fetch?: typeof fetch
}

/**
 * The facilitator calls a seller makes (and the status reads of parx's facilitator). x402 failures come back as values
 * (isValid or
 * success false, whatever the HTTP status); only a facilitator that cannot be read throws.
 */
export function facilitatorClient(o: FacilitatorClientOptions) {
  const base = o.url.replace(/\/+$/, '')
  const f = o.fetch ?? fetch
  const headers = { 'content-type': 'application/json', ...(o.apiKey ? { 'x-api-key': o.apiKey } : {}) }
  const post = async <T>(path: string, body: unknown, shape: (v: Record<string, unknown>) => boolean): Promise<T> => {
    const res = await f(`${base}${path}`, { method: 'POST', headers, body: JSON.stringify(body) })
    const data = (await res.json().catch(() => undefined)) as Record<string, unknown> | undefined
    if (!data || !shape(data))
      throw new BaseError(
        'FACILITATOR_UNAVAILABLE',
        `facilitator ${path} answered ${res.status}: ${JSON.stringify(data ?? {}).slice(0, 200)}`,
      )
    return data as T
  }
  const get = async <T>(path: string): Promise<T> => {
    const res = await f(`${base}${path}`, { headers })
    const data = (await res.json().catch(() => undefined)) as T | undefined
    if (!res.ok || !data)
      throw new BaseError(
        'FACILITATOR_UNAVAILABLE',
        `facilitator ${path} answered ${res.status}: ${JSON.stringify(data ?? {}).slice(0, 200)}`,
      )
    return data
  }
  return {
    async supported(): Promise<SupportedResponse> {
      const res = await f(`${base}/supported`, { headers })
      if (!res.ok) throw new BaseError('FACILITATOR_UNAVAILABLE', `facilitator /supported answered ${res.status}`)
      return (await res.json()) as SupportedResponse
    },
    verify: (body: unknown) => post<VerifyResponse>('/verify', body, (d) => typeof d.isValid === 'boolean'),
    settle: (body: unknown) => post<SettleResponse>('/settle', body, (d) => typeof d.success === 'boolean'),
    /** Where a payment stands by its payment-identifier (`payTo` when two sellers used the id); throws on 404. */
    status: (paymentId: string, payTo?: string) =>
      get<PaymentStatus>(
        `/status/${encodeURIComponent(paymentId)}${payTo ? `?payTo=${encodeURIComponent(payTo)}` : ''}`,
      ),
    /** Every payment a settlement transaction carries; throws on 404. */
    transactionStatus: (transaction: string) => get<TransactionStatus>(`/status/tx/${encodeURIComponent(transaction)}`),
  }
}

export type FacilitatorClient = ReturnType<typeof facilitatorClient>

/**
 * What the seller middleware asks of a facilitator: an HTTP facilitatorClient, or an embedder's
 * own (parx's platform calls its facilitator in process, daemon/seller/paid-facilitator.ts).
 */
export type SellerFacilitator = Pick<FacilitatorClient, 'supported' | 'verify' | 'settle'>
