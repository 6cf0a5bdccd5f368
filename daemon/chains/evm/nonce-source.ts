import type { Store } from '../../store/store.js'

/**
 * Port: where a relayer key's nonces come from. This process's version counts locally; the store's
 * version lets replicas that relay with the same key share one counter, so they never collide.
 */
export type NonceSource = {
  /** The next nonce to sign with; it is taken (no other caller, here or on a replica, gets it). */
  take(): Promise<number>
  /**
   * Hands back a nonce whose transaction the node refused. True when nothing was taken after it, so
   * the next `take` reuses it; false when later nonces are out, and the caller must fill the gap.
   */
  giveBack(nonce: number): Promise<boolean>
  /** The node disputes the count: ask it again before the next `take`. */
  reset(): void
}

/** This process's counter, seeded from the node's pending count. */
export function processNonces(seed: () => Promise<number>): NonceSource {
  let next: number | undefined
  return {
    async take() {
      next ??= await seed()
      return next++
    },
    async giveBack(nonce) {
      if (next !== nonce + 1) return false
      next = nonce
      return true
    },
    reset: () => void (next = undefined),
  }
}

/**
 * One counter per (chain, address) in the store's `relayer_nonces`, shared by every process on the
 * store. Each call is one atomic statement: the row's lock orders concurrent takers. The counter is
 * (re)seeded from the node's pending count, never moved backwards by a seed.
 */
export function storeNonces(store: Store, chainId: number, address: string, seed: () => Promise<number>): NonceSource {
  const { db } = store
  const key = { chain_id: chainId, address: address.toLowerCase() }
  let seeded = false
  const ensureSeeded = async () => {
    if (seeded) return
    const pending = await seed()
    await db
      .insertInto('relayer_nonces')
      .values({ ...key, next_nonce: pending })
      .onConflict((oc) => oc.doNothing())
      .execute()
    // Raise the counter only when the chain is ahead of it (a seed never hands out a nonce twice).
    await db
      .updateTable('relayer_nonces')
      .set({ next_nonce: pending })
      .where('chain_id', '=', chainId)
      .where('address', '=', key.address)
      .where('next_nonce', '<', pending)
      .execute()
    seeded = true
  }
  return {
    async take() {
      await ensureSeeded()
      const r = await db
        .updateTable('relayer_nonces')
        .set((eb) => ({ next_nonce: eb('next_nonce', '+', 1) }))
        .where('chain_id', '=', chainId)
        .where('address', '=', key.address)
        .returning('next_nonce')
        .executeTakeFirstOrThrow()
      return Number(r.next_nonce) - 1
    },
    async giveBack(nonce) {
      const r = await db
        .updateTable('relayer_nonces')
        .set({ next_nonce: nonce })
        .where('chain_id', '=', chainId)
        .where('address', '=', key.address)
        .where('next_nonce', '=', nonce + 1)
        .executeTakeFirst()
      return Number(r.numUpdatedRows) === 1
    },
    reset: () => void (seeded = false),
  }
}
