import { BaseError } from '../../../src/errors/index.js'
import type { ChosenOffer, PayDryRun } from '../../../src/sdk/platform/pay.js'
import { fromBaseUnits, toBaseUnits } from '../../../src/sdk/units.js'
import type { AgentRow } from '../../platform/store.js'
import { type ApprovalGateDeps, gateApproval } from '../approvals/gate.js'
import { usdMicros } from '../limits.js'
import { dryRunVerdict } from '../policy/verdict.js'
import type { SpendsLedger } from '../spends.js'

/** What the gate needs of pay's deps: the ledger a dry run reads, and the approvals when this deployment asks them. */
export type PriceGateDeps = { spends: SpendsLedger; approvals?: ApprovalGateDeps }

/** The request fields the gate reads: the cap, the dry run, and what binds an approval. */
export type PricedRequest = {
  url: string
  method: string
  headers: Record<string, string>
  body?: string
  maxAmount?: string
  protocol?: 'x402' | 'mpp'
  scheme?: 'exact' | 'auth-capture'
  dryRun: boolean
  approvalId?: string
}

/**
 * The one step every chosen offer passes (per request or through a channel), once its price is
 * known and before anything is reserved or signed: above maxAmount it is refused (PRICE_ABOVE_MAX,
 * with `maxAmount`, `amount` and `token` as fields, so a client words it without reading the
 * message); a dry run answers its verdict here; otherwise the approval gate is asked. Returns the
 * price in USD micros for the reservation, or the dry run's answer.
 */
export async function priceGate(
  d: PriceGateDeps,
  agent: AgentRow,
  req: PricedRequest,
  offer: ChosenOffer,
  price: { raw: bigint; decimals: number },
  host: string,
): Promise<{ amountMicros: bigint } | PayDryRun> {
  const amount = fromBaseUnits(price.raw, price.decimals)
  if (req.maxAmount !== undefined && price.raw > toBaseUnits(req.maxAmount, price.decimals)) {
    throw new BaseError(
      'PRICE_ABOVE_MAX',
      `the seller asks ${amount} ${offer.token}, above maxAmount ${req.maxAmount}; nothing was paid`,
      {
        fields: { maxAmount: req.maxAmount, amount, token: offer.token },
      },
    )
  }
  const amountMicros = usdMicros(amount, price.decimals)
  if (req.dryRun)
    return dryRunVerdict(d.spends, agent, {
      offer,
      ruleRefusal: null,
      amountMicros,
      host,
      approvals: d.approvals !== undefined,
    })
  await approvalGate(d, agent, req, amount, offer.token, amountMicros)
  return { amountMicros }
}

/**
 * Above the agent's approval threshold: held (APPROVAL_REQUIRED) or the approval consumed, before anything is reserved
 * or signed.
 */
async function approvalGate(
  d: PriceGateDeps,
  agent: AgentRow,
  req: PricedRequest,
  amount: string,
  token: string,
  amountMicros: bigint,
): Promise<void> {
  if (!d.approvals) return
  // What binds the approval: the same URL, method, headers, body, cap and protocol (headers in name order).
  const headers = Object.fromEntries(
    Object.entries(req.headers)
      .map(([k, v]) => [k.toLowerCase(), v] as const)
      .sort(([a], [b]) => (a < b ? -1 : 1)),
  )
  const request = {
    url: req.url,
    method: req.method,
    headers,
    body: req.body ?? null,
    maxAmount: req.maxAmount ?? null,
    protocol: req.protocol ?? null,
    scheme: req.scheme ?? null,
  }
  await gateApproval(d.approvals, agent, {
    kind: 'pay',
    request,
    target: req.url,
    method: req.method,
    amount,
    token,
    amountMicros,
    approvalId: req.approvalId,
  })
}
