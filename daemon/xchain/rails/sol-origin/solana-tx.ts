import type { Connection, Keypair, TransactionInstruction } from '@solana/web3.js'
import type { SolanaReads } from '../../../chains/solana/reads.js'
import { TransactionMessage, VersionedTransaction } from '@solana/web3.js'
import bs58 from 'bs58'
import { BaseError } from '../../../../src/errors/index.js'
import { signMessage } from '../../../chains/solana/signer.js'
import type { SentTx, TxFate } from '../../rail.js'

/**
 * A transaction the solver alone signs and pays for (claims, refunds): signed, persisted through
 * `persist` (its signature is its id, known before the broadcast), sent, then confirmed.
 */
export async function sendSolverTx(chain: { connection: Connection; reads: SolanaReads }, solver: Keypair, instructions: TransactionInstruction[], persist: (s: SentTx) => Promise<void>): Promise<SentTx> {
  const { connection, reads } = chain
  const latest = await reads.latestBlockhash('confirmed')
  const message = new TransactionMessage({ payerKey: solver.publicKey, recentBlockhash: latest.blockhash, instructions }).compileToLegacyMessage()
  const tx = new VersionedTransaction(message)
  tx.signatures[0] = signMessage(solver, tx.message.serialize())
  const sent: SentTx = { ref: bs58.encode(tx.signatures[0]), validUntil: latest.lastValidBlockHeight, raw: Buffer.from(tx.serialize()).toString('base64') }
  await persist(sent)
  try {
    await connection.sendRawTransaction(tx.serialize(), { skipPreflight: false, preflightCommitment: 'confirmed' })
  } catch (e) {
    // Refused before it reached a block (preflight): it never lands, so the next attempt need not wait for its blockhash.
    await persist({ ref: sent.ref, validUntil: 0 })
    throw new BaseError('RELAY_FAILED', `the Solana node refused ${sent.ref}: ${e instanceof Error ? e.message : String(e)}`, { cause: e })
  }
  await confirmByPolling(reads, sent.ref, latest.lastValidBlockHeight)
  return sent
}

/**
 * Waits for `signature` by polling its status, not by subscription: web3.js subscriptions keep a
 * websocket that reconnects forever once the node is gone, which would keep a stopped daemon alive.
 */
async function confirmByPolling(reads: SolanaReads, signature: string, lastValidBlockHeight: number): Promise<void> {
  for (;;) {
    const height = await reads.blockHeight('confirmed')
    const [status] = await reads.signatureStatuses([signature], { searchTransactionHistory: false })
    if (status && status.confirmationStatus !== 'processed') {
      if (status.err) throw new BaseError('RELAY_FAILED', `Solana transaction ${signature} failed: ${JSON.stringify(status.err)}`)
      return
    }
    if (!status && height > lastValidBlockHeight) throw new BaseError('RELAY_FAILED', `Solana transaction ${signature} expired (block height ${lastValidBlockHeight} passed) before it landed`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

/**
 * Sends a transaction signed and persisted earlier again, as is. An error is only logged by the
 * caller's next fate check: the node refuses one it has processed already, and an expired one dies.
 */
export async function rebroadcastSolana(connection: Connection, raw: string): Promise<void> {
  await connection.sendRawTransaction(Buffer.from(raw, 'base64'), { skipPreflight: true, maxRetries: 0 })
}

/** What became of a transaction signed earlier (by its signature and its blockhash's last valid height). */
export async function solanaFate(reads: SolanaReads, signature: string, validUntil: number | null): Promise<TxFate> {
  const height = await reads.blockHeight('confirmed')
  const [status] = await reads.signatureStatuses([signature], { searchTransactionHistory: true })
  if (status) {
    if (status.err) return 'failed'
    return status.confirmationStatus === 'processed' ? 'pending' : 'landed'
  }
  return validUntil !== null && height > validUntil ? 'dead' : 'pending'
}
