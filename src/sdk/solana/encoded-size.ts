import bs58 from 'bs58'

/**
 * The longest text each Solana value can be, by its real size. bs58 decoding is quadratic in the
 * input length, so a 60,000-character "public key" costs seconds of CPU: every base58 or base64
 * input is checked against these before it is decoded.
 */
export const solanaEncodedSize = {
  /** 32 bytes in base58. */
  pubkeyBase58: 44,
  /** 64 bytes in base58. */
  signatureBase58: 88,
  /** A wire transaction is at most 1232 bytes (the node's own limits, agave MAX_BASE58_SIZE / MAX_BASE64_SIZE). */
  transactionBase58: 1683,
  transactionBase64: 1644,
  transactionBytes: 1232,
} as const

/** Base58 text that decodes to exactly `bytes` bytes; longer text is refused before decoding. */
export function isBase58Of(value: unknown, bytes: 32 | 64): value is string {
  const max = bytes === 32 ? solanaEncodedSize.pubkeyBase58 : solanaEncodedSize.signatureBase58
  if (typeof value !== 'string' || value.length === 0 || value.length > max) return false
  try {
    return bs58.decode(value).length === bytes
  } catch {
    return false
  }
}

/** Decodes base58 of exactly `bytes` bytes, or undefined (bounded like `isBase58Of`). */
export function decodeBase58Of(value: unknown, bytes: 32 | 64): Uint8Array | undefined {
  return isBase58Of(value, bytes) ? bs58.decode(value) : undefined
}
