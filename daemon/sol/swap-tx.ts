import { createAssociatedTokenAccountIdempotentInstruction, createTransferCheckedInstruction } from '@solana/spl-token'
import { PublicKey, TransactionInstruction } from '@solana/web3.js'
import { compileLegacyMessage } from '../chains/solana/legacy-message.js'
import { ataOf, type Token } from './accounts.js'

/** SPL Memo v3: present on every cluster (and in LiteSVM); it only logs its data. */
export const MEMO_PROGRAM_ID = new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr')

/** Lamports per signature on every cluster today; a swap carries two (solver and user). */
export const LAMPORTS_PER_SIGNATURE = 5000n

export type SwapTxParameters = {
  solver: PublicKey
  user: PublicKey
  input: Token
  output: Token
  amountIn: bigint
  amountOut: bigint
  /** Which associated token accounts do not exist yet and are created (rent paid by the solver). */
  create: { userOutput: boolean; solverInput: boolean }
  blockhash: string
  /**
   * Logged by the Memo program. Carries a random tag, so two identical requests in one slot still
   * give two distinct transactions (a cluster would drop the second as already processed).
   */
  memo: string
}

/**
 * The whole swap, built here and nowhere else: the user's input to the solver, the solver's output
 * to the user, nothing more. The solver pays the fee (the user needs no SOL) and signs first, so
 * the transaction id is the solver's signature. Any change by the user to what the solver signed
 * invalidates that signature.
 */
export function swapInstructions(p: SwapTxParameters): TransactionInstruction[] {
  const userIn = ataOf(p.user, p.input)
  const userOut = ataOf(p.user, p.output)
  const solverIn = ataOf(p.solver, p.input)
  const solverOut = ataOf(p.solver, p.output)
  const out: TransactionInstruction[] = []
  if (p.create.userOutput) {
    out.push(
      createAssociatedTokenAccountIdempotentInstruction(p.solver, userOut, p.user, p.output.mint, p.output.program),
    )
  }
  if (p.create.solverInput) {
    out.push(
      createAssociatedTokenAccountIdempotentInstruction(p.solver, solverIn, p.solver, p.input.mint, p.input.program),
    )
  }
  out.push(
    createTransferCheckedInstruction(
      userIn,
      p.input.mint,
      solverIn,
      p.user,
      p.amountIn,
      p.input.decimals,
      [],
      p.input.program,
    ),
    createTransferCheckedInstruction(
      solverOut,
      p.output.mint,
      userOut,
      p.solver,
      p.amountOut,
      p.output.decimals,
      [],
      p.output.program,
    ),
    new TransactionInstruction({ programId: MEMO_PROGRAM_ID, keys: [], data: Buffer.from(p.memo, 'utf8') }),
  )
  return out
}

/**
 * The swap's legacy message, the bytes its signers sign (signers: solver, then user). Legacy
 * rather than v0: it needs no lookup table, and every wallet and both web3.js decoders
 * (`Transaction.from`, `VersionedTransaction.deserialize`) read it. Compiled as web3.js's
 * `TransactionMessage.compileToLegacyMessage()` would, byte for byte, at a fraction of its cost.
 */
export function swapMessage(p: SwapTxParameters): Uint8Array {
  return compileLegacyMessage(p.solver, swapInstructions(p), p.blockhash)
}
