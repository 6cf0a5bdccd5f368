import {
  AccountState,
  createAssociatedTokenAccountIdempotentInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
  unpackAccount,
} from '@solana/spl-token'
import { type AccountInfo, PublicKey, TransactionInstruction } from '@solana/web3.js'
import { reasons } from '../reasons.js'
import type { SplFailure } from './delegated-spl.js'

/** The payer's and the recipient's token accounts of a delegated-spl payment. */
export function tokenAccounts(p: { from: string; to: string; mint: PublicKey; programId: PublicKey }) {
  return {
    source: getAssociatedTokenAddressSync(p.mint, new PublicKey(p.from), true, p.programId),
    destination: getAssociatedTokenAddressSync(p.mint, new PublicKey(p.to), true, p.programId),
  }
}

/**
 * The chain's side of a delegated-spl payment: the payer's token account exists for this mint,
 * names the facilitator's signer as delegate for at least the price, holds the price and is not frozen.
 */
export function checkDelegatedAccount(
  info: AccountInfo<Buffer> | null,
  p: { source: PublicKey; mint: PublicKey; owner: string; delegate: PublicKey; price: bigint; programId: PublicKey },
): SplFailure | undefined {
  if (!info)
    return {
      reason: reasons.svmSplTokenAccount,
      message: `${p.owner} has no token account for mint ${p.mint.toBase58()} (${p.source.toBase58()})`,
    }
  let acc
  try {
    acc = unpackAccount(p.source, info, p.programId)
  } catch (e) {
    return {
      reason: reasons.svmSplTokenAccount,
      message: `${p.source.toBase58()} is not a token account: ${(e as Error).message}`,
    }
  }
  if (!acc.mint.equals(p.mint) || acc.owner.toBase58() !== p.owner) {
    return {
      reason: reasons.svmSplTokenAccount,
      message: `${p.source.toBase58()} is not ${p.owner}'s account for mint ${p.mint.toBase58()}`,
    }
  }
  if (acc.isFrozen || (acc as { state?: AccountState }).state === AccountState.Frozen) {
    return { reason: reasons.svmSplTokenAccount, message: `${p.source.toBase58()} is frozen` }
  }
  if (!acc.delegate?.equals(p.delegate)) {
    return {
      reason: reasons.svmDelegateMismatch,
      message:
        `the facilitator's signer ${p.delegate.toBase58()} is not the delegate ` +
        `of ${p.source.toBase58()}; approve it once with spl-token approve`,
    }
  }
  if (acc.delegatedAmount < p.price) {
    return {
      reason: reasons.svmDelegatedAmount,
      message: `the delegated amount ${acc.delegatedAmount} is less than the price ${p.price}`,
    }
  }
  if (acc.amount < p.price)
    return { reason: reasons.svmInsufficientBalance, message: `${p.owner} holds ${acc.amount}, less than ${p.price}` }
  return undefined
}

export const MEMO_PROGRAM_ID = new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr')

/**
 * transferChecked signed by the delegate, creating the recipient's account first when it has none,
 * and a memo naming the payer's nonce: it records the nonce on chain, and keeps two equal payments
 * sent under one blockhash from being one transaction.
 */
export function delegatedTransferInstructions(p: {
  feePayer: PublicKey
  source: PublicKey
  destination: PublicKey
  to: string
  mint: PublicKey
  programId: PublicKey
  amount: bigint
  decimals: number
  createDestination: boolean
  nonce: string
  /** Which signed form the memo names (delegated-spl, or its metered upto). */
  form?: string
}): TransactionInstruction[] {
  const out: TransactionInstruction[] = []
  if (p.createDestination) {
    out.push(
      createAssociatedTokenAccountIdempotentInstruction(
        p.feePayer,
        p.destination,
        new PublicKey(p.to),
        p.mint,
        p.programId,
      ),
    )
  }
  out.push(
    createTransferCheckedInstruction(
      p.source,
      p.mint,
      p.destination,
      p.feePayer,
      p.amount,
      p.decimals,
      [],
      p.programId,
    ),
  )
  out.push(
    new TransactionInstruction({
      programId: MEMO_PROGRAM_ID,
      keys: [],
      data: Buffer.from(`x402 ${p.form ?? 'delegated-spl'} nonce:${p.nonce}`, 'utf8'),
    }),
  )
  return out
}
