import { type Hex, keccak256, toHex } from 'viem'
import { describe, expect, it } from 'vitest'
import { type Delivery, evmDeliveryDigest } from '../../../../contracts/xchain/statement.js'
import { deliveryDigest } from './delivery-digest.js'

const word = (s: string): Hex => keccak256(toHex(s))
const verifier = '0x00000000000000000000000000000000000000aa'

describe('the remembered delivery digest', () => {
  it("is evmDeliveryDigest's for the same delivery, asked again, and for a delivery differing in any one field, chain or verifier", () => {
    const d: Delivery = {
      orderId: word('order'),
      destChain: word('chain'),
      recipient: word('recipient'),
      outputToken: word('token'),
      amount: 1_000_000n,
      solver: word('solver'),
    }
    expect(deliveryDigest(d, 8453, verifier)).toBe(evmDeliveryDigest(d, 8453, verifier))
    expect(deliveryDigest({ ...d }, 8453, verifier)).toBe(evmDeliveryDigest(d, 8453, verifier))
    const variants: [Delivery, number, `0x${string}`][] = [
      ...(['orderId', 'destChain', 'recipient', 'outputToken', 'solver'] as const).map(
        (k): [Delivery, number, `0x${string}`] => [{ ...d, [k]: word(`other ${k}`) }, 8453, verifier],
      ),
      [{ ...d, amount: 1_000_001n }, 8453, verifier],
      [d, 84532, verifier],
      [d, 8453, '0x00000000000000000000000000000000000000bb'],
    ]
    const seen = new Set([evmDeliveryDigest(d, 8453, verifier)])
    for (const [v, chainId, at] of variants) {
      const digest = deliveryDigest(v, chainId, at)
      expect(digest).toBe(evmDeliveryDigest(v, chainId, at))
      seen.add(digest)
    }
    expect(seen.size).toBe(variants.length + 1)
  })
})
