import { BaseError as ViemBaseError, TransactionNotFoundError, TransactionReceiptNotFoundError, type Hex } from 'viem'
import type { EvmChain } from '../chains/evm/chain.js'

export type ConfirmResult =
  | { hash: Hex; status: 'pending' }
  | { hash: Hex; status: 'included'; success: true; blockNumber: number; gasUsed: string }
  | { hash: Hex; status: 'failed'; success: false; blockNumber: number; reason: string }
  | { hash: Hex; status: 'unknown'; reason: string }

/** Where a relayed transaction stands: pending, included, failed with its revert reason, or unknown to the node. */
export async function confirmTransaction(chain: EvmChain, hash: Hex): Promise<ConfirmResult> {
  try {
    const r = await chain.client.getTransactionReceipt({ hash })
    if (r.status === 'success') return { hash, status: 'included', success: true, blockNumber: Number(r.blockNumber), gasUsed: r.gasUsed.toString() }
    return { hash, status: 'failed', success: false, blockNumber: Number(r.blockNumber), reason: await revertReason(chain, hash, r.blockNumber) }
  } catch (e) {
    if (!(e instanceof TransactionReceiptNotFoundError)) throw e
  }
  try {
    await chain.client.getTransaction({ hash })
    return { hash, status: 'pending' }
  } catch (e) {
    if (e instanceof TransactionNotFoundError) return { hash, status: 'unknown', reason: 'the node does not know this transaction (dropped, replaced, or never sent)' }
    throw e
  }
}

/** Replays the failed transaction at its block to recover the revert reason. */
async function revertReason(chain: EvmChain, hash: Hex, blockNumber: bigint): Promise<string> {
  const tx = await chain.client.getTransaction({ hash })
  try {
    await chain.client.call({ account: tx.from, to: tx.to!, data: tx.input, value: tx.value, gas: tx.gas, blockNumber })
    return 'reverted (no reason could be recovered)'
  } catch (e) {
    return e instanceof ViemBaseError ? e.shortMessage : String(e)
  }
}
