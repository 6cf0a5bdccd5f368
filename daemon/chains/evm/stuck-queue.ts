import type { Address, Hex, PublicClient } from 'viem'

export type StuckQueueGuardParameters = {
  client: Pick<PublicClient, 'request' | 'getTransactionCount'>
  address: Address
  /** Told each time a stuck queue was released. */
  onRelease?(e: { nonce: number; resent: number }): void
  everyMs?: number
  /**
   * Whether the node is one with this race (asked once, at the first look; default: it is). When
   * not, the guard stops for good and keeps nothing.
   */
  active?(): Promise<boolean>
  /**
   * The bytes to send again from `nonce` up, one per nonce in nonce order, read after the removal.
   * Default: what this guard was told was signed. Replicas sharing the key pass every process's
   * (the shared outbox): a release takes all of the sender's transactions out of the pool, and a
   * dead replica's would otherwise be lost, leaving a gap no one fills.
   */
  signedFrom?(nonce: number): Promise<Hex[]>
}

export type StuckQueueGuard = {
  /** Bytes just signed for `nonce` (before any answer of the node): watched until the chain has taken them. */
  signed(nonce: number, raw: Hex): void
  /** A nonce given back after a refusal: its bytes are never sent again. */
  forget(nonce: number): void
  /** One look (what the timer runs); true when it released a stuck queue. */
  check(): Promise<boolean>
}

/** How often a sender with transactions outstanding looks at its nonce on the chain. */
const EVERY_MS = 500

type TxPoolContent = {
  pending?: Record<string, Record<string, { hash: Hex }>>
  queued?: Record<string, Record<string, { hash: Hex }>>
}

/**
 * anvil (1.7, automine) can leave a transaction in its queued pool although its nonce is the
 * sender's next one: a transaction that arrives while the one before it is being mined waits for a
 * pool marker the mined block already consumed. Nothing of that sender lands again: every later
 * nonce queues behind it, and re-sending the bytes is refused as already imported
 * (foundry-rs/foundry#10122 is of this family). The swap bench met it once in about a dozen runs.
 *
 * A transaction whose nonce equals the sender's count on chain is never legitimately queued. When
 * the count has not moved for one look and the same transaction sits queued at it on the next, the
 * sender's transactions are taken out of the pool (`anvil_removePoolTransactions`) and the bytes it
 * signed from that nonce up (and not yet mined) are sent again in nonce order: the same hashes, now judged against the
 * current nonce. A broadcast of this sender still in flight meanwhile either arrived before the
 * removal (and is among the bytes sent again, which are read after it) or after it (and stays),
 * so nothing is lost.
 *
 * On the embedded chains one process owns the node and signs for each of its keys. Replicas on
 * `parx chains` (anvil as a remote node) share a key: they pass `active` (is the node anvil) and
 * `signedFrom` (the outbox, where every replica records its bytes before the node sees them).
 */
export function stuckQueueGuard(p: StuckQueueGuardParameters): StuckQueueGuard {
  const address = p.address.toLowerCase()
  // What was signed and not yet seen mined, by nonce: what a stuck queue is refilled from.
  const outstanding = new Map<number, Hex>()
  let timer: NodeJS.Timeout | undefined
  let lastCount: number | undefined
  let suspect: Hex | undefined
  let running = false

  const stop = () => {
    clearInterval(timer)
    timer = undefined
    lastCount = undefined
    suspect = undefined
  }

  /** Unknown until the first look asks the node; false stops the guard for good. */
  let enabled: boolean | undefined = p.active ? undefined : true

  const check = async (): Promise<boolean> => {
    enabled ??= await p.active!()
    if (!enabled) {
      outstanding.clear()
      stop()
      return false
    }
    const count = await p.client.getTransactionCount({ address: p.address, blockTag: 'latest' })
    for (const nonce of outstanding.keys()) if (nonce < count) outstanding.delete(nonce)
    if (outstanding.size === 0) {
      stop()
      return false
    }
    if (count !== lastCount) {
      // Moving (or the first look): nothing to judge yet.
      lastCount = count
      suspect = undefined
      return false
    }
    const pool = (await p.client.request({ method: 'txpool_content', params: [] } as never)) as TxPoolContent
    const mine = Object.entries(pool.queued ?? {}).find(([sender]) => sender.toLowerCase() === address)?.[1]
    const stuck = mine?.[String(count)]?.hash
    if (!stuck || stuck !== suspect) {
      // Queued at the count for one look only, or not at all (mining paused keeps it pending).
      suspect = stuck
      return false
    }
    await p.client.request({ method: 'anvil_removePoolTransactions', params: [p.address] } as never)
    // After the removal: whatever was broadcast before it was signed (and recorded) before it.
    const resend = p.signedFrom
      ? await p.signedFrom(count)
      : [...outstanding.entries()].sort(([a], [b]) => a - b).map(([, raw]) => raw)
    for (const raw of resend) {
      // One already mined (or back in the pool) is refused: nothing to do for it.
      await p.client.request({ method: 'eth_sendRawTransaction', params: [raw] }).catch(() => undefined)
    }
    suspect = undefined
    lastCount = undefined
    p.onRelease?.({ nonce: count, resent: resend.length })
    return true
  }

  return {
    signed(nonce, raw) {
      if (enabled === false) return
      outstanding.set(nonce, raw)
      if (timer) return
      timer = setInterval(() => {
        if (running) return
        running = true
        // A failed look (the node stopping with the daemon) is retried at the next tick.
        check()
          .catch(() => undefined)
          .finally(() => (running = false))
      }, p.everyMs ?? EVERY_MS)
      timer.unref()
    },
    forget: (nonce) => void outstanding.delete(nonce),
    check,
  }
}
