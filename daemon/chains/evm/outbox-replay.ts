import type { Logger } from 'pino'
import type { Hex } from 'viem'
import { causalOrder } from './causal-order.js'
import type { EvmChain } from './chain.js'
import type { Outbox, OutboxRow } from './outbox.js'

/** What a replay round did: the transactions it broadcast again or decided failed. */
export type ReplayResult = { rebroadcast: Set<string>; failed: Set<string> }

/**
 * Reconciles every outbox transaction without a receipt, per sender in nonce order and across
 * senders in the order they were signed (causalOrder): one with a
 * receipt is marked included; one the node still holds is left pending; one the node lost is
 * broadcast again byte for byte (after a crash that rolled an embedded chain back, or a reorg, it
 * lands again as it was); one the chain will not take (its nonce used by another transaction, or
 * the payload no longer valid) is marked failed, and the caller fails what it served.
 */
export async function replayOutbox(
  outbox: Outbox,
  chains: Record<string, EvmChain>,
  log: Logger,
  select: { idleForMs?: number } = {},
): Promise<ReplayResult> {
  const result: ReplayResult = { rebroadcast: new Set(), failed: new Set() }
  // Rows a live sender may still be broadcasting are left to it: only those idle long enough (or,
  // at start, before any new transaction is signed, all of them).
  const rows = await outbox.unconfirmed(select.idleForMs === undefined ? undefined : Date.now() - select.idleForMs)
  for (const row of causalOrder(rows)) {
    const chain = chains[row.network]
    if (!chain || Number(chain.chainId) !== Number(row.chain_id)) continue
    try {
      const fate = await replayOne(chain, row)
      if (fate.state === 'included') await outbox.mark(row.hash, 'included')
      else if (fate.state === 'failed') {
        await outbox.mark(row.hash, 'failed', fate.reason)
        result.failed.add(row.hash)
        log.warn(
          { hash: row.hash, network: row.network, nonce: Number(row.nonce), reason: fate.reason },
          'outbox: the chain will not take this transaction; what it served is failed',
        )
      } else if (fate.state === 'rebroadcast') {
        result.rebroadcast.add(row.hash)
        if (fate.receipt) await outbox.mark(row.hash, 'included')
        log.info(
          { hash: row.hash, network: row.network, nonce: Number(row.nonce) },
          'outbox: the chain had lost this transaction; broadcast it again',
        )
      }
    } catch (err) {
      log.warn({ err, hash: row.hash }, 'outbox: the chain could not be read; the next round retries')
    }
  }
  return result
}

type Fate =
  | { state: 'included' }
  | { state: 'pending' }
  | { state: 'rebroadcast'; receipt: boolean }
  | { state: 'failed'; reason: string }

async function replayOne(chain: EvmChain, row: OutboxRow): Promise<Fate> {
  const client = chain.client
  const hash = row.hash as Hex
  const receipt = async () => (await client.request({ method: 'eth_getTransactionReceipt', params: [hash] })) !== null
  if (await receipt()) return { state: 'included' }
  if ((await client.request({ method: 'eth_getTransactionByHash', params: [hash] })) !== null)
    return { state: 'pending' }
  const used = async () =>
    (await client.getTransactionCount({ address: row.sender as Hex, blockTag: 'latest' })) > Number(row.nonce)
  if (await used())
    return { state: 'failed', reason: `nonce ${Number(row.nonce)} of ${row.sender} was used by another transaction` }
  try {
    await client.request({ method: 'eth_sendRawTransaction', params: [row.raw as Hex] })
  } catch (e) {
    if (await receipt()) return { state: 'included' }
    if (await used())
      return { state: 'failed', reason: `nonce ${Number(row.nonce)} of ${row.sender} was used by another transaction` }
    return { state: 'failed', reason: `the node refuses it: ${(e as Error).message.split('\n')[0]}` }
  }
  // Embedded chains mine on arrival: the receipt is there at once. Elsewhere the next round sees it.
  return { state: 'rebroadcast', receipt: await receipt() }
}
