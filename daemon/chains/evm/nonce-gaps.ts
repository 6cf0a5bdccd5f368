import type { Logger } from 'pino'
import type { EvmChain } from './chain.js'
import type { Outbox } from './outbox.js'
import type { TxSender } from './tx-sender.js'

export type NonceGapsParameters = {
  outbox: Outbox
  /** Every sender whose nonces come from the shared counter, with its chain. */
  senders: Array<{ chain: EvmChain; sender: Pick<TxSender, 'address' | 'fill'> }>
  log: Logger
  /** How long the transactions behind a missing nonce have waited before it is filled. */
  idleForMs: number
}

/**
 * Hosted replicas take nonces from one counter in the store (./nonce-source.ts), and a process
 * killed between taking a nonce and recording its transaction (a few milliseconds of every send)
 * leaves that nonce with nothing signed for it: every later transaction of the key, whichever
 * replica signed it, then waits behind it on any node, forever. The outbox replay cannot help (it
 * has no row for it) nor can the sender that took it (dead). Run by the leader: for each sender,
 * when the chain's count is a nonce the outbox has no undecided row for, while rows above it have
 * waited `idleForMs` (far longer than any live sender takes from nonce to record), the nonce is
 * filled with a no-op so the rest land. Returns the nonces filled.
 */
export async function fillNonceGaps(
  p: NonceGapsParameters,
): Promise<Array<{ network: string; address: string; nonce: number }>> {
  const filled: Array<{ network: string; address: string; nonce: number }> = []
  for (const { chain, sender } of p.senders) {
    try {
      const count = await chain.client.getTransactionCount({ address: sender.address, blockTag: 'latest' })
      const rows = await p.outbox.sentFrom(chain.key, sender.address, count)
      // Nothing waiting, or the count's own transaction is there (the replay's to decide).
      if (rows.length === 0 || Number(rows[0]!.nonce) === count) continue
      if (!rows.some((r) => Number(r.created_at) <= Date.now() - p.idleForMs)) continue
      const hash = await sender.fill(count)
      filled.push({ network: chain.key, address: sender.address, nonce: count })
      p.log.warn(
        { network: chain.key, address: sender.address, nonce: count, hash, waiting: rows.length },
        'nonce taken by a process that never sent it: filled with a no-op so the transactions behind it land',
      )
    } catch (err) {
      p.log.warn({ err, network: chain.key, address: sender.address }, 'nonce gap check failed; the next round retries')
    }
  }
  return filled
}
