import { type Address, getAddress, type Hex } from 'viem'
import { BaseError } from '../../src/errors/index.js'

/** How many (user, nonce) claims are kept; older ones have long landed or failed. */
const KEPT = 20_000

type Claim = { hash?: Hex }

/** One order's claim: the relay records its hash once sent, or releases the claim when it failed before. */
export type OrderClaim = { relayed(hash: Hex): Promise<void> | void; release(): Promise<void> | void }

/**
 * Port: orders being relayed, by (user, nonce). The router's nonce only moves once a swap is mined,
 * so without this a second submission of the same order while the first is in flight would pass
 * every check and burn the solver's gas on a revert (or, across replicas, relay twice).
 */
export type InflightOrders = {
  /** Claims the order's nonce or throws NONCE_MISMATCH naming the transaction that holds it. */
  claim(user: Address, nonce: bigint): Promise<OrderClaim>
}

export const orderTaken = (user: Address, nonce: bigint, hash?: string) =>
  new BaseError(
    'NONCE_MISMATCH',
    `order.nonce ${nonce} of ${getAddress(user)} is already taken by a swap being ` +
      `relayed${hash ? ` (${hash}; poll GET /api/base/confirm?hash=${hash})` : ''}: ` +
      `do not resubmit it; sign the next order with nonce ${nonce + 1n} once it lands`,
  )

/**
 * This process's version (one process per store: SQLite). `isLive` says whether a relayed hash may
 * still land. Replicas use `storeInflightOrders` (inflight-store.ts), where the store's primary key decides.
 */
export function inflightOrders(isLive: (hash: Hex) => Promise<boolean>): InflightOrders {
  const claims = new Map<string, Claim>()
  const keyOf = (user: Address, nonce: bigint) => `${user.toLowerCase()}:${nonce}`

  return {
    async claim(user, nonce) {
      const key = keyOf(user, nonce)
      for (let prior = claims.get(key); prior; prior = claims.get(key)) {
        if (!prior.hash || (await isLive(prior.hash))) throw orderTaken(user, nonce, prior.hash)
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
