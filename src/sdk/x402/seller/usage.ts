import type { ServerResponse } from 'node:http'
import { parseUnits } from 'viem'

/**
 * The response header a handler sets to say what an `upto` (metered) request used, as the
 * reference's `setSettlementOverrides(res, { amount })` (@x402/express) sets it. The payment gate
 * reads it after the handler, settles that amount, and removes it before the response goes out.
 */
export const SETTLEMENT_OVERRIDES_HEADER = 'Settlement-Overrides'

/**
 * Reports the amount an `upto` request consumed, before the handler writes its body. `amount`:
 * base units (`'1500'` or `1500n`), a percentage of the signed maximum (`'25%'`, up to two
 * decimals) or dollars of the asset (`'$0.015'`). Never above the maximum: a larger amount is
 * refused by the facilitator and the request answers 402 without its body. Not called: the
 * whole maximum is charged, as the reference does.
 *
 * @example
 * app.get('/tokens', (req, res) => {
 *   const used = runModel(req)
 *   settleAmount(res, used.costBaseUnits)
 *   res.json(used.output)
 * })
 */
export function settleAmount(res: ServerResponse, amount: string | bigint): void {
  res.setHeader(SETTLEMENT_OVERRIDES_HEADER, JSON.stringify({ amount: amount.toString() }))
}

/**
 * The amount to settle, in base units: the handler's report resolved against the signed maximum,
 * the maximum when there is none, or `{ invalid }` naming what could not be read.
 */
export function takeSettlementAmount(
  res: ServerResponse,
  max: string,
  decimals?: number,
): string | { invalid: string } {
  const raw = res.getHeader(SETTLEMENT_OVERRIDES_HEADER)
  res.removeHeader(SETTLEMENT_OVERRIDES_HEADER)
  return raw === undefined ? max : readSettlementAmount(String(raw), max, decimals)
}

/**
 * A Settlement-Overrides value in base units, against the signed maximum `max` (for a
 * percentage) and the asset's `decimals` (for dollars); `{ invalid }` when it cannot be read. Not
 * capped at the maximum: what a larger report means is the caller's to decide.
 */
export function readSettlementAmount(raw: string, max: string, decimals?: number): string | { invalid: string } {
  let amount: unknown
  try {
    amount = (JSON.parse(raw) as { amount?: unknown }).amount
  } catch {
    return { invalid: `${SETTLEMENT_OVERRIDES_HEADER} is not JSON: ${raw.slice(0, 80)}` }
  }
  if (typeof amount !== 'string') return { invalid: `${SETTLEMENT_OVERRIDES_HEADER} has no string amount` }
  if (/^\d{1,78}$/.test(amount)) return BigInt(amount).toString()
  const percent = /^(\d+)(?:\.(\d{1,2}))?%$/.exec(amount)
  if (percent)
    return (
      (BigInt(max) * (BigInt(percent[1]!) * 100n + BigInt((percent[2] ?? '').padEnd(2, '0')))) /
      10_000n
    ).toString()
  const dollars = /^\$(\d+(?:\.\d+)?)$/.exec(amount)
  if (dollars && decimals !== undefined) return parseUnits(dollars[1]!, decimals).toString()
  return {
    invalid:
      `${SETTLEMENT_OVERRIDES_HEADER} amount '${amount}' is ` +
      `neither base units, a percentage nor dollars of a known asset`,
  }
}
