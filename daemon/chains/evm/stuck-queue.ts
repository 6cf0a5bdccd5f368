import type { Address, Hex, PublicClient } from 'viem'

export type StuckQueueGuardParameters = {
  client: Pick<PublicClient, 'request' | 'getTransactionCount'>
  address: Address
  /** The highest nonce this sender has signed, if any. */
  highestSigned(): number | undefined
  /** The bytes this sender signed for each nonce from `from` up, in nonce order. */
  signedFrom(from: number): Hex[]
  /** Told each time a stuck queue was released. */
  onRelease?(e: { nonce: number; resent: number }): void
  everyMs?: number
}

export type StuckQueueGuard = {
  /** A transaction was signed: watch until the chain has taken every one. */
  poke(): void
  /** One look (what the timer runs); true when it released a stuck queue. */
  check(): Promise<boolean>
  stop(): void
}

/** How often a sender with transactions outstanding looks at its nonce on the chain. */
const EVERY_MS = 500

type TxPoolContent = { pending?: Record<string, Record<string, { hash: Hex }>>; queued?: Record<string, Record<string, { hash: Hex }>> }

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
 * signed from that nonce up are sent again in nonce order: the same hashes, now judged against the
 * current nonce. A broadcast of this sender still in flight meanwhile either arrived before the
 * removal (and is among the bytes sent again) or after it (and stays), so nothing is lost.
 *
 * Embedded chains only: one process owns the node and signs for each of its keys.
 */
export function stuckQueueGuard(p: StuckQueueGuardParameters): StuckQueueGuard {
  const address = p.address.toLowerCase()
  let timer: NodeJS.Timeout | undefined
  let lastCount: number | undefined
  let suspect: Hex | undefined
  let running = false

  const stop = () => {
    if (timer) clearInterval(timer)
    timer = undefined
    lastCount = undefined
    suspect = undefined
  }

  const check = async (): Promise<boolean> => {
    const highest = p.highestSigned()
    const count = await p.client.getTransactionCount({ address: p.address, blockTag: 'latest' })
    if (highest === undefined || count > highest) {
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
    const resend = p.signedFrom(count)
    await p.client.request({ method: 'anvil_removePoolTransactions', params: [p.address] } as never)
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
    poke() {
      if (timer) return
      timer = setInterval(() => {
        if (running) return
        running = true
        // A failed look (the node stopping with the daemon) is retried at the next tick.
        check().catch(() => undefined).finally(() => (running = false))
      }, p.everyMs ?? EVERY_MS)
      timer.unref()
    },
    check,
    stop,
  }
}
