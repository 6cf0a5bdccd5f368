import { TransactionMessage, VersionedTransaction } from '@solana/web3.js'
import { reasons } from '../../../src/sdk/x402/reasons.js'
import { delegatedTransferInstructions } from '../../../src/sdk/x402/svm/delegated-transfer.js'
import type { Executed } from '../method.js'
import type { SvmRuntime } from './runtime.js'

/**
 * Signs (fee payer and delegate: the facilitator's signer) and lands one delegated transferChecked,
 * for delegated-spl and its metered upto alike; an unconfirmed landing is `pending`, never failed.
 */
export async function sendDelegatedTransfer(
  r: SvmRuntime,
  p: Omit<Parameters<typeof delegatedTransferInstructions>[0], 'feePayer'>,
): Promise<Executed> {
  const instructions = delegatedTransferInstructions({ ...p, feePayer: r.signer.publicKey })
  const message = new TransactionMessage({
    payerKey: r.signer.publicKey,
    recentBlockhash: await r.blockhash(),
    instructions,
  }).compileToV0Message()
  const tx = new VersionedTransaction(message)
  tx.sign([r.signer])
  const landed = await r.land(tx.serialize())
  if (landed.state === 'ok') return { ok: true, tx: landed.signature }
  if (landed.state === 'pending')
    return {
      ok: false,
      pending: true,
      tx: landed.signature,
      reason: reasons.settlementPending,
      message: `transaction ${landed.signature} is not confirmed yet`,
    }
  return { ok: false, tx: landed.signature, reason: reasons.svmTransactionFailed, message: landed.message }
}
