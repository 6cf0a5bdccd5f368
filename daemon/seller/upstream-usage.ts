import { readSettlementAmount, SETTLEMENT_OVERRIDES_HEADER } from '../../src/sdk/x402/seller/usage.js'
import { connectionNamed } from '../egress/headers.js'

/**
 * What an upstream reports it used, as the value the seller gate reads (`Settlement-Overrides`,
 * src/sdk/x402/seller/usage.ts), or undefined when it reports nothing. The header never reaches
 * the buyer (egress/headers.ts TO_BUYER does not name it; the gate takes it off): it is the
 * upstream telling the platform, as a handler tells our SDK gate with `settleAmount`.
 *
 * A report above the endpoint's price is capped at the price: the gate would refuse it and void
 * the hold, so a third party's over-report would cost its own seller the call, while a buyer
 * never pays more than it signed for either way. A report that cannot be read is passed as it
 * came, so the gate refuses it like its own handler's (an auth-capture hold voided, the buyer
 * answered 402 and not charged). Only metered schemes read it (auth-capture, batch-settlement);
 * `exact` charges its price whatever is reported (src/sdk/x402/seller/middleware.ts).
 */
export function upstreamUsage(h: Headers, price: bigint, decimals: number): string | undefined {
  const raw = h.get(SETTLEMENT_OVERRIDES_HEADER)
  if (raw === null || connectionNamed(h.get('connection')).has(SETTLEMENT_OVERRIDES_HEADER.toLowerCase()))
    return undefined
  const used = readSettlementAmount(raw, price.toString(), decimals)
  if (typeof used !== 'string') return raw
  return JSON.stringify({ amount: (BigInt(used) < price ? BigInt(used) : price).toString() })
}
