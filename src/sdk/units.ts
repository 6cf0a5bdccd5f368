import { BaseError } from '../errors/index.js'

/**
 * Exact human decimal -> base units. No floats: "0.1" at 18 decimals is 100000000000000000n exactly.
 * More fractional digits than the token has is an error, never a silent rounding.
 */
export function toBaseUnits(amount: string, decimals: number, field = 'amount'): bigint {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(amount.trim())
  if (!m) throw new BaseError('BAD_REQUEST', `${field} must be a positive decimal like "12.5", got "${amount}"`)
  const [, whole, frac = ''] = m
  if (frac.replace(/0+$/, '').length > decimals) {
    throw new BaseError(
      'BAD_REQUEST',
      `${field} has more than ${decimals} decimal places, the token's precision: "${amount}"`,
    )
  }
  return BigInt(whole!) * 10n ** BigInt(decimals) + BigInt((frac + '0'.repeat(decimals)).slice(0, decimals) || '0')
}

/** Base units -> the shortest exact human decimal string. */
export function fromBaseUnits(raw: bigint, decimals: number): string {
  const neg = raw < 0n
  const s = (neg ? -raw : raw).toString().padStart(decimals + 1, '0')
  const whole = s.slice(0, s.length - decimals)
  const frac = s.slice(s.length - decimals).replace(/0+$/, '')
  return `${neg ? '-' : ''}${whole}${frac ? `.${frac}` : ''}`
}
