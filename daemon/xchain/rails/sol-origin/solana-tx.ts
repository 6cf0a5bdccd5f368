import type { Connection, Keypair, TransactionInstruction } from '@solana/web3.js'
import bs58 from 'bs58'
import { BaseError } from '../../../../src/errors/index.js'
import { signMessage } from '../../../../src/sdk/solana/sign.js'
import { compileLegacyMessage, legacyWire } from '../../../chains/solana/legacy-message.js'
import type { SolanaReads } from '../../../chains/solana/reads.js'
import type { SentTx, TxFate } from '../../rail.js'

/**
 * A transaction the solver alone signs and pays for (fills, claims, refunds): signed, persisted
 * through `persist` (its signature is its id, known before the broadcast), sent, then confirmed.
 * The legacy message is compiled to bytes once (web3.js's compile and serialize keep instruction
 * data as base58, quadratic in its length: a claim's ed25519 instruction carries ~470 bytes, and
 * web3.js encoded and decoded it four times per claim).
 */
export async function sendSolverTx(
  chain: { connection: Connection; reads: SolanaReads },
  solver: Keypair,
  instructions: TransactionInstruction[],
  persist: (s: SentTx) => Promise<void>,
): Promise<SentTx> {
  const { connection, reads } = chain
  const latest = await reads.latestBlockhash('confirmed')
  const message = compileLegacyMessage(solver.publicKey, instructions, latest.blockhash)
  // The header's first byte: how many signatures the message needs. The solver's is the only one here.
  if (message[0] !== 1)
    throw new BaseError('INTERNAL', `a solver transaction needs ${message[0]} signatures; only the solver signs`)
  const signature = signMessage(solver, message)
  const wire = legacyWire([signature], message)
  const sent: SentTx = {
    ref: bs58.encode(signature),
    validUntil: latest.lastValidBlockHeight,
    raw: wire.toString('base64'),
  }
  await persist(sent)
  try {
    await connection.sendRawTransaction(wire, { skipPreflight: false, preflightCommitment: 'confirmed' })
  } catch (e) {
    // Refused before it reached a block (preflight): it never lands, so the next attempt need not wait for its
    // blockhash.
    await persist({ ref: sent.ref, validUntil: 0 })
    throw new BaseError(
      'RELAY_FAILED',
      `the Solana node refused ${sent.ref}: ${e instanceof Error ? e.message : String(e)}`,
      { cause: e },
    )
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
      if (status.err)
        throw new BaseError('RELAY_FAILED', `Solana transaction ${signature} failed: ${JSON.stringify(status.err)}`)
      return
    }
    if (!status && height > lastValidBlockHeight)
      throw new BaseError(
        'RELAY_FAILED',
        `Solana transaction ${signature} expired (block height ${lastValidBlockHeight} passed) before it landed`,
      )
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
