import {
  ExecutionRevertedError,
  type Hex,
  parseEventLogs,
  TransactionNotFoundError,
  type TransactionReceipt,
  TransactionReceiptNotFoundError,
  BaseError as ViemBaseError,
} from 'viem'
import * as RfqSwap from '../../contracts/evm/artifacts/RfqSwap.js'
import type { ConfirmResult, SwapEvent } from '../../src/sdk/swap/types.js'
import type { EvmChain } from '../chains/evm/chain.js'
import type { Outbox } from '../chains/evm/outbox.js'
import type { TxSender } from '../chains/evm/tx-sender.js'

export type { ConfirmResult }

/**
 * Where a relayed transaction stands: pending, included (with the swap it settled), failed with its
 * revert reason, or gone. For a transaction of `sender` that the node no longer knows, its nonce
 * tells the two losses apart: taken by another transaction (replaced, final), or still free
 * (dropped: the same signed bytes are broadcast again, so polling continues).
 */
export async function confirmTransaction(
  chain: EvmChain,
  hash: Hex,
  sender?: TxSender,
  outbox?: Pick<Outbox, 'get'>,
): Promise<ConfirmResult> {
  try {
    const r = await chain.client.getTransactionReceipt({ hash })
    if (r.status === 'success') {
      const swap = swapOf(chain, r)
      return {
        hash,
        status: 'included',
        success: true,
        blockNumber: Number(r.blockNumber),
        gasUsed: r.gasUsed.toString(),
        ...(swap ? { swap } : {}),
      }
    }
    return {
      hash,
      status: 'failed',
      success: false,
      blockNumber: Number(r.blockNumber),
      reason: await revertReason(chain, hash, r.blockNumber),
    }
  } catch (e) {
    if (!(e instanceof TransactionReceiptNotFoundError)) throw e
  }
  try {
    await chain.client.getTransaction({ hash })
    return { hash, status: 'pending' }
  } catch (e) {
    if (!(e instanceof TransactionNotFoundError)) throw e
  }
  const ours = sender?.sent(hash)
  if (!ours) {
    // Sent by an earlier run (or another replica): the outbox has it and reconciliation decides it.
    const row = await outbox?.get(hash).catch(() => undefined)
    if (row?.state === 'failed') {
      return {
        hash,
        status: 'dropped',
        resubmitted: false,
        reason:
          `the chain lost this transaction and will not take it again ` +
          `(${row.reason ?? 'refused'}); the order was not executed: check nonces(user) and re-sign`,
      }
    }
    // No receipt yet: reconciliation is broadcasting the same signed bytes again.
    if (row) return { hash, status: 'pending' }
  }
  if (!sender || !ours)
    return {
      hash,
      status: 'unknown',
      reason: 'the node does not know this transaction (dropped, replaced, or never sent by this relayer)',
    }
  const mined = await chain.client.getTransactionCount({ address: sender.address, blockTag: 'latest' })
  if (mined > ours.nonce) return replaced(hash, ours.nonce)
  const resubmitted = await sender.resubmit(hash)
  // The resubmission can lose a race with another transaction of the same nonce.
  if (
    !resubmitted &&
    (await chain.client.getTransactionCount({ address: sender.address, blockTag: 'latest' })) > ours.nonce
  )
    return replaced(hash, ours.nonce)
  return {
    hash,
    status: 'dropped',
    resubmitted,
    reason: resubmitted
      ? 'the node had dropped this transaction; the relayer broadcast it again unchanged: keep polling'
      : 'the node dropped this transaction and refused it again; the order was not executed: re-sign it',
  }
}

function replaced(hash: Hex, nonce: number): ConfirmResult {
  return {
    hash,
    status: 'replaced',
    reason:
      `another transaction of the relayer took nonce ${nonce}; this one will never be included ` +
      `and its order was not executed by it: check nonces(user) and re-sign if it is unchanged`,
  }
}

/** The router's Swapped event in the receipt: the amounts really delivered (a pool fill can beat the floor). */
function swapOf(chain: EvmChain, r: TransactionReceipt): SwapEvent | undefined {
  const router = chain.contracts.router?.toLowerCase()
  const log = parseEventLogs({ abi: RfqSwap.abi, logs: r.logs, eventName: 'Swapped' }).find(
    (l) => l.address.toLowerCase() === router,
  )
  if (!log) return undefined
  const a = log.args
  return {
    orderHash: a.orderHash,
    user: a.user,
    inputToken: a.inputToken,
    inputAmount: a.inputAmount.toString(),
    outputToken: a.outputToken,
    outputAmount: a.outputAmount.toString(),
    nonce: a.nonce.toString(),
  }
}

/** Replays the failed transaction at its block to recover the revert reason. */
async function revertReason(chain: EvmChain, hash: Hex, blockNumber: bigint): Promise<string> {
  const tx = await chain.client.getTransaction({ hash })
  try {
    await chain.client.call({ account: tx.from, to: tx.to!, data: tx.input, value: tx.value, gas: tx.gas, blockNumber })
    return 'reverted (no reason could be recovered)'
  } catch (e) {
    // A revert says why. Anything else is about the replay, not the swap: the node may no longer
    // hold that block's state (the embedded chains keep the last 500 blocks').
    if (e instanceof ViemBaseError && e.walk((x) => x instanceof ExecutionRevertedError)) return e.shortMessage
    const why = e instanceof ViemBaseError ? e.details || e.shortMessage : String(e)
    return `reverted (no reason could be recovered: the node could not replay it at block ${blockNumber}: ${why})`
  }
}
