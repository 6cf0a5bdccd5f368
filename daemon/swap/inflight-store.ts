import { randomUUID } from 'node:crypto'
import type { Address, Hex } from 'viem'
import type { Store } from '../store/store.js'
import { type InflightOrders, orderTaken } from './inflight.js'

export type StoreInflightOrdersParameters = {
  store: Store
  chainId: number
  /** Whether a relayed hash may still land (mined successfully or still known to the node). */
  isLive(hash: Hex): Promise<boolean>
  now?: () => number
}

/**
 * A claim without a hash older than this belongs to a replica that died between claiming and
 * sending (checks and simulation take well under a second): the order may be relayed again.
 */
const ORPHANED_AFTER_MS = 60_000
/** Claims are history after a day (the order's deadline has long passed); pruned now and then. */
const KEPT_FOR_MS = 86_400_000

/**
 * The replica-safe version of the port: a claim is a row whose primary key is (chain, user,
 * nonce), so of two replicas racing the same signed order exactly one inserts it and relays; the
 * other answers NONCE_MISMATCH naming the first one's transaction once it has one. A claim whose
 * relay reverted or vanished is taken over (deleted by its claim id, then inserted again: a
 * third racer loses to whichever insert comes first).
 */
export function storeInflightOrders(p: StoreInflightOrdersParameters): InflightOrders {
  const { db } = p.store
  const now = p.now ?? Date.now
  let claimsSincePrune = 0
  return {
    async claim(user: Address, nonce: bigint) {
      const key = { chain_id: p.chainId, user_address: user.toLowerCase(), nonce: nonce.toString() }
      for (;;) {
        const claimId = randomUUID()
        const t = now()
        const ins = await db
          .insertInto('swap_claims')
          .values({ ...key, claim_id: claimId, hash: null, created_at: t })
          .onConflict((oc) => oc.columns(['chain_id', 'user_address', 'nonce']).doNothing())
          .executeTakeFirst()
        if (Number(ins.numInsertedOrUpdatedRows ?? 0n) === 1) {
          if (++claimsSincePrune >= 500) {
            claimsSincePrune = 0
            await db
              .deleteFrom('swap_claims')
              .where('created_at', '<', t - KEPT_FOR_MS)
              .execute()
              .catch(() => {})
          }
          const mine = db
            .updateTable('swap_claims')
            .where('chain_id', '=', key.chain_id)
            .where('user_address', '=', key.user_address)
            .where('nonce', '=', key.nonce)
            .where('claim_id', '=', claimId)
          return {
            relayed: async (hash: Hex) => void (await mine.set({ hash }).execute()),
            release: async () =>
              void (await db
                .deleteFrom('swap_claims')
                .where('chain_id', '=', key.chain_id)
                .where('user_address', '=', key.user_address)
                .where('nonce', '=', key.nonce)
                .where('claim_id', '=', claimId)
                .execute()),
          }
        }
        const prior = await db
          .selectFrom('swap_claims')
          .selectAll()
          .where('chain_id', '=', key.chain_id)
          .where('user_address', '=', key.user_address)
          .where('nonce', '=', key.nonce)
          .executeTakeFirst()
        if (!prior) continue // released meanwhile: try again
        if (prior.hash ? await p.isLive(prior.hash as Hex) : now() - Number(prior.created_at) < ORPHANED_AFTER_MS) {
          throw orderTaken(user, nonce, prior.hash ?? undefined)
        }
        // The earlier relay failed, vanished or was orphaned without moving the nonce: retry it.
        await db
          .deleteFrom('swap_claims')
          .where('chain_id', '=', key.chain_id)
          .where('user_address', '=', key.user_address)
          .where('nonce', '=', key.nonce)
          .where('claim_id', '=', prior.claim_id)
          .execute()
      }
    },
  }
}
