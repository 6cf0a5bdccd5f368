import { createHash } from 'node:crypto'
import { getAssociatedTokenAddressSync, TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from '@solana/spl-token'
import { ComputeBudgetProgram, PublicKey, VersionedTransaction } from '@solana/web3.js'
import { isBase58Of, solanaEncodedSize } from '../../solana/encoded-size.js'
import { reasons } from '../reasons.js'
import type { PaymentRequirements } from '../types.js'
import { type SplFailure, verifySplSignature } from './delegated-spl.js'

/** The reference client's limits: compute price above this is refused, as the reference facilitator does. */
export const MAX_COMPUTE_UNIT_PRICE_MICROLAMPORTS = 5_000_000n
const MEMO_PROGRAM = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr'
const LIGHTHOUSE_PROGRAM = 'L2TExMFKdjpN9kozasaurPirfHy9P8sbXoAN1qA3S95'
const TRANSFER_CHECKED = 12

export type ExactTransfer = { tx: VersionedTransaction; payer: string; key: string; programId: PublicKey }

/**
 * Checks a reference `exact` Solana payload (`{transaction}`: base64, partially signed by the payer,
 * fee payer = the facilitator) the way the reference facilitator does, from the wire bytes alone:
 * layout [compute limit, compute price, TransferChecked, memo/lighthouse...], payTo's associated
 * account and the exact amount, valid payer signatures, and never the facilitator as authority.
 */
export function checkExactTransaction(
  payload: Record<string, unknown>,
  r: PaymentRequirements,
  facilitator: PublicKey,
  network: string,
): ExactTransfer | (SplFailure & { payer?: string }) {
  if (typeof r.extra.feePayer !== 'string')
    return { reason: reasons.svmMissingFeePayer, message: 'requirements.extra.feePayer is missing' }
  if (r.extra.feePayer !== facilitator.toBase58()) {
    return {
      reason: reasons.svmFeePayerNotManaged,
      message: `extra.feePayer ${r.extra.feePayer} is not this facilitator's ${facilitator.toBase58()}`,
    }
  }
  let tx: VersionedTransaction
  if (typeof payload.transaction !== 'string' || payload.transaction.length > solanaEncodedSize.transactionBase64) {
    return {
      reason: reasons.svmTransactionUndecodable,
      message:
        `payload.transaction is not a base64 Solana transaction ` +
        `of at most ${solanaEncodedSize.transactionBytes} bytes`,
    }
  }
  try {
    tx = VersionedTransaction.deserialize(Buffer.from(String(payload.transaction), 'base64'))
  } catch {
    return {
      reason: reasons.svmTransactionUndecodable,
      message: 'payload.transaction is not a base64 Solana transaction',
    }
  }
  const msg = tx.message
  if (msg.addressTableLookups.length > 0)
    return { reason: reasons.svmTransactionUndecodable, message: 'address lookup tables are not accepted' }
  const keys = msg.staticAccountKeys
  if (!keys[0]?.equals(facilitator))
    return {
      reason: reasons.svmFeePayerMismatch,
      message: `the fee payer is ${keys[0]?.toBase58()}, not ${facilitator.toBase58()}`,
    }
  const bytes = msg.serialize()
  for (let i = 1; i < msg.header.numRequiredSignatures; i++) {
    if (!verifySplSignature(bytes, tx.signatures[i] ?? new Uint8Array(), keys[i]!.toBase58())) {
      return {
        reason: reasons.svmSignatureInvalid,
        message: `signature ${i} (${keys[i]!.toBase58()}) is missing or invalid`,
      }
    }
  }
  const ixs = msg.compiledInstructions
  const program = (i: number) => keys[ixs[i]!.programIdIndex]!
  if (ixs.length < 3 || ixs.length > 7)
    return { reason: reasons.svmInstructionsLength, message: `${ixs.length} instructions; 3 to 7 are accepted` }
  if (!program(0).equals(ComputeBudgetProgram.programId) || ixs[0]!.data[0] !== 2 || ixs[0]!.data.length !== 5) {
    return { reason: reasons.svmComputeLimitInstruction, message: 'the first instruction must be SetComputeUnitLimit' }
  }
  if (!program(1).equals(ComputeBudgetProgram.programId) || ixs[1]!.data[0] !== 3 || ixs[1]!.data.length !== 9) {
    return { reason: reasons.svmComputePriceInstruction, message: 'the second instruction must be SetComputeUnitPrice' }
  }
  if (Buffer.from(ixs[1]!.data).readBigUInt64LE(1) > MAX_COMPUTE_UNIT_PRICE_MICROLAMPORTS) {
    return {
      reason: reasons.svmComputePriceTooHigh,
      message: `the compute unit price exceeds ${MAX_COMPUTE_UNIT_PRICE_MICROLAMPORTS} micro-lamports`,
    }
  }
  const t = ixs[2]!
  const programId = program(2)
  if (
    (!programId.equals(TOKEN_PROGRAM_ID) && !programId.equals(TOKEN_2022_PROGRAM_ID)) ||
    t.data[0] !== TRANSFER_CHECKED ||
    t.data.length < 10 ||
    t.accountKeyIndexes.length < 4
  ) {
    return { reason: reasons.svmNoTransferInstruction, message: 'the third instruction must be a TransferChecked' }
  }
  const [, mint, destination, authority] = t.accountKeyIndexes.slice(0, 4).map((i) => keys[i]!)
  const payer = authority!.toBase58()
  if (authority!.equals(facilitator))
    return {
      reason: reasons.svmFeePayerTransferringFunds,
      message: 'the facilitator may not be the transfer authority',
      payer,
    }
  if (mint!.toBase58() !== r.asset)
    return {
      reason: reasons.svmMintMismatch,
      message: `the transfer's mint ${mint!.toBase58()} is not ${r.asset}`,
      payer,
    }
  if (!isBase58Of(r.payTo, 32))
    return { reason: reasons.invalidPaymentRequirements, message: 'requirements.payTo is not a Solana address' }
  const expected = getAssociatedTokenAddressSync(mint!, new PublicKey(r.payTo), true, programId)
  if (!destination!.equals(expected))
    return {
      reason: reasons.svmRecipientMismatch,
      message: `the transfer goes to ${destination!.toBase58()}, not payTo's account ${expected.toBase58()}`,
      payer,
    }
  const amount = Buffer.from(t.data).readBigUInt64LE(1)
  if (amount !== BigInt(r.amount))
    return {
      reason: reasons.svmAmountMismatch,
      message: `the transfer moves ${amount}, the price is ${r.amount}`,
      payer,
    }
  for (let i = 3; i < ixs.length; i++) {
    const id = program(i).toBase58()
    if (id !== MEMO_PROGRAM && id !== LIGHTHOUSE_PROGRAM)
      return {
        reason: reasons.svmUnknownOptionalInstruction,
        message: `instruction ${i + 1} calls ${id}; only memo and lighthouse may follow the transfer`,
        payer,
      }
  }
  const key = `${network}:svm-tx:${createHash('sha256').update(bytes).digest('hex')}`
  return { tx, payer, key, programId }
}
