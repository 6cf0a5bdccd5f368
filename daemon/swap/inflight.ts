import { getAddress, type Address, type Hex } from 'viem'
import { BaseError } from '../../src/errors/index.js'

/** How many (user, nonce) claims are kept; older ones have long landed or failed. */
const KEPT = 20_000

type Claim = { hash?: Hex }

/**
 * Orders being relayed, by (user, nonce). The router's nonce only moves once a swap is mined, so
 * without this a second submission of the same order while the first is in flight would pass every
 * check and burn the solver's gas on a revert. `isLive` says whether a relayed hash may still land.
 */
export function inflightOrders(isLive: (hash: Hex) => Promise<boolean>) {
  const claims = new Map<string, Claim>()
  const keyOf = (user: Address, nonce: bigint) => `${user.toLowerCase()}:${nonce}`

  return {
    /** Claims the order's nonce or throws NONCE_MISMATCH naming the transaction that holds it. */
    async claim(user: Address, nonce: bigint): Promise<{ relayed(hash: Hex): void; release(): void }> {
      const key = keyOf(user, nonce)
      for (let prior = claims.get(key); prior; prior = claims.get(key)) {
        if (!prior.hash || (await isLive(prior.hash))) {
          throw new BaseError('NONCE_MISMATCH', `order.nonce ${nonce} of ${getAddress(user)} is already taken by a swap being relayed${prior.hash ? ` (${prior.hash}; poll GET /api/base/confirm?hash=${prior.hash})` : ''}: do not resubmit it; sign the next order with nonce ${nonce + 1n} once it lands`)
        }
        // The earlier relay failed or vanished without moving the nonce: this submission may retry it.
        if (claims.get(key) === prior) claims.delete(key)
      }
      const claim: Claim = {}
      claims.set(key, claim)
      if (claims.size > KEPT) claims.delete(claims.keys().next().value!)
      return {
        relayed: (hash) => void (claim.hash = hash),
        release: () => void (claims.get(key) === claim && claims.delete(key)),
      }
    },
  }
}

export type InflightOrders = ReturnType<typeof inflightOrders>
