import type { Hex, TransactionReceipt } from 'viem'
import { BaseError } from '../../../../src/errors/index.js'
import { outboxStore } from '../../../chains/evm/outbox.js'
import type { SentTx, TxFate } from '../../rail.js'
import type { EvmOriginDeps } from './deps.js'

/** What each escrow transaction is recorded as in the outbox (purpose), with the order id as refs. */
export const PURPOSE = { open: 'xchain-open', claim: 'xchain-claim', refund: 'xchain-refund' } as const
export type EscrowPurpose = (typeof PURPOSE)[keyof typeof PURPOSE]

const GAS: Record<EscrowPurpose, bigint> = {
  'xchain-open': 300_000n,
  'xchain-claim': 300_000n,
  'xchain-refund': 150_000n,
}

/**
 * The solver's SourceEscrow transactions on Base (openFor relays, claims, refunds). The sender
 * writes each signed transaction to the outbox before the node sees it, with its purpose and the
 * order id; so before sending, the outbox is asked for one of the same purpose still undecided, and
 * that one is waited for instead of a second (after a crash between the broadcast and `persist`,
 * the order row may not know it yet).
 */
export function escrowTxs(d: Pick<EvmOriginDeps, 'base' | 'baseSender' | 'store'>) {
  const outbox = outboxStore(d.store)
  const client = d.base.client
  const receiptOf = (hash: Hex) => client.getTransactionReceipt({ hash }).catch(() => undefined)

  /** The newest transaction of `purpose` for `orderId` that nobody decided failed, and its receipt if included. */
  async function earlier(
    purpose: EscrowPurpose,
    orderId: string,
  ): Promise<{ hash: Hex; receipt?: TransactionReceipt } | undefined> {
    for (const row of await outbox.byRefs(d.base.key, purpose, orderId)) {
      if (row.state === 'failed') continue
      const hash = row.hash as Hex
      const receipt = await receiptOf(hash)
      if (receipt?.status === 'reverted') continue
      if (!receipt && row.state !== 'sent') continue
      return { hash, receipt }
    }
    return undefined
  }

  /**
   * Sends `data` to the escrow for `orderId` unless an undecided one of the same purpose exists;
   * `persist` gets its hash either way. Resolves once included and successful; a revert is a
   * RELAY_FAILED naming the transaction.
   */
  async function send(
    purpose: EscrowPurpose,
    orderId: string,
    data: Hex,
    persist: (s: SentTx) => Promise<void>,
  ): Promise<SentTx & { receipt?: TransactionReceipt }> {
    const escrow = d.base.contracts.escrow
    if (!escrow) throw new BaseError('FLOW_DISABLED', `SourceEscrow is not deployed on ${d.base.key}`)
    const before = await earlier(purpose, orderId)
    if (before) {
      await persist({ ref: before.hash, validUntil: null })
      return { ref: before.hash, validUntil: null, receipt: before.receipt }
    }
    const { hash, receipt } = await d.baseSender.sendAndWait({
      to: escrow,
      data,
      gas: GAS[purpose],
      purpose,
      refs: orderId,
    })
    await persist({ ref: hash, validUntil: null })
    if (receipt.status !== 'success') {
      // Decided now, so `earlier` no longer offers it and the next attempt may send again.
      await outbox.mark(hash, 'included')
      throw new BaseError('RELAY_FAILED', `the ${purpose} transaction ${hash} of ${orderId} reverted on ${d.base.key}`)
    }
    return { ref: hash, validUntil: null, receipt }
  }

  /** What became of a transaction sent earlier: its receipt, else whether the outbox gave it up. */
  async function fate(ref: string): Promise<TxFate> {
    const receipt = await receiptOf(ref as Hex)
    if (receipt) return receipt.status === 'success' ? 'landed' : 'failed'
    const row = await outbox.get(ref)
    return row?.state === 'failed' ? 'dead' : 'pending'
  }

  return { send, fate, earlier }
}
