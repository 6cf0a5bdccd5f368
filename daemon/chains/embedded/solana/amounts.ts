import { BaseError } from '../../../../src/errors/index.js'

/**
 * Parses a human decimal amount ("12.5") into base units at `decimals`, exactly: digits beyond
 * the token's precision are an error, never rounded away, so a faucet or a swap never moves a
 * different amount than the one written.
 */
export function parseDecimalAmount(amount: string, decimals: number): bigint {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(amount.trim())
  if (!match) throw new BaseError('BAD_REQUEST', `amount must be a positive decimal number, got "${amount}"`)
  const whole = match[1] ?? '0'
  const fraction = match[2] ?? ''
  if (fraction.length > decimals) {
    throw new BaseError('BAD_REQUEST', `amount ${amount} has more than ${decimals} decimal places`)
  }
  return BigInt(whole) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, '0') || '0')
}

/** Base units as a trimmed decimal string: 1500000 at 6 decimals is "1.5", 0 is "0". */
export function formatDecimalAmount(raw: bigint, decimals: number): string {
  const negative = raw < 0n
  const digits = (negative ? -raw : raw).toString().padStart(decimals + 1, '0')
  const whole = digits.slice(0, digits.length - decimals)
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '')
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`
}

export type UiTokenAmount = { amount: string; decimals: number; uiAmount: number | null; uiAmountString: string }

/** The RPC's token amount object (getTokenAccountBalance, jsonParsed, token balances). */
export function uiTokenAmount(raw: bigint, decimals: number): UiTokenAmount {
  const uiAmountString = formatDecimalAmount(raw, decimals)
  return { amount: raw.toString(), decimals, uiAmount: Number(uiAmountString), uiAmountString }
}
