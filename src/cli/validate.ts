import { usageError } from './errors.js'

/** Flag values checked before anything is sent, so a typo is a usage error (exit 2), not a service rejection. */

export function evmAddress(value: string, flag: string): string {
  if (!/^0x[0-9a-fA-F]{40}$/.test(value))
    throw usageError(`${flag} '${value}' is not an EVM address: pass 0x followed by 40 hex digits`)
  return value
}

export function solanaAddress(value: string, flag: string): string {
  if (!/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(value))
    throw usageError(`${flag} '${value}' is not a Solana public key (base58, 32 to 44 characters)`)
  return value
}

/** A positive human amount such as 12.5 (no sign, no exponent). */
export function amount(value: string, flag: string): string {
  if (!/^(\d+\.?\d*|\.\d+)$/.test(value) || !/[1-9]/.test(value))
    throw usageError(`${flag} '${value}' is not a positive amount such as 12.5`)
  return value
}
