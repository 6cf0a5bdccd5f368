import type { Address, Hex } from 'viem'
import { type Delivery, evmDeliveryDigest } from '../../../../contracts/xchain/statement.js'

/** Digests kept: far more than the orders in flight at once. */
const KEPT = 1_000
const digests = new Map<string, Hex>()

/**
 * `evmDeliveryDigest`, remembered by its whole input. The worker and each of the three in-process
 * attestors hash the same delivery of an order (viem's hashTypedData, ~0.5 ms each: ~5% of the
 * daemon's CPU with 20 evm-origin orders in flight). The function is pure, so this changes no
 * answer: each attestor still builds the delivery from its own reads, and a delivery that differs
 * in any field (or any hex spelling) is another key, hashed anew.
 */
export function deliveryDigest(d: Delivery, chainId: number, verifier: Address): Hex {
  // Every field the delivery has, whatever it grows: a field left out of the key could hand one delivery another's
  // digest.
  const key = JSON.stringify([chainId, verifier, d], (_, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v))
  let digest = digests.get(key)
  if (!digest) {
    digest = evmDeliveryDigest(d, chainId, verifier)
    digests.set(key, digest)
    if (digests.size > KEPT) digests.delete(digests.keys().next().value!)
  }
  return digest
}
