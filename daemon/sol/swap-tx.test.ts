import {
  ASSOCIATED_TOKEN_PROGRAM_ID,
  decodeTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
  TOKEN_2022_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
} from '@solana/spl-token'
import { Keypair, Transaction, TransactionMessage, VersionedMessage, VersionedTransaction } from '@solana/web3.js'
import bs58 from 'bs58'
import { describe, expect, it } from 'vitest'
import { signMessage } from '../../src/sdk/solana/sign.js'
import type { Token } from './accounts.js'
import { MEMO_PROGRAM_ID, type SwapTxParameters, swapInstructions, swapMessage } from './swap-tx.js'

const solver = Keypair.generate()
const user = Keypair.generate()
const usdc: Token = { symbol: 'USDC', mint: Keypair.generate().publicKey, decimals: 6, program: TOKEN_PROGRAM_ID }
const pusd: Token = { symbol: 'PUSD', mint: Keypair.generate().publicKey, decimals: 9, program: TOKEN_2022_PROGRAM_ID }
const params: SwapTxParameters = {
  solver: solver.publicKey,
  user: user.publicKey,
  input: usdc,
  output: pusd,
  amountIn: 12_500_000n,
  amountOut: 12_500_000_000n,
  create: { userOutput: false, solverInput: false },
  blockhash: bs58.encode(new Uint8Array(32).fill(3)),
  memo: 'parx:entry:00',
}
const ata = (owner: Keypair, t: Token) => getAssociatedTokenAddressSync(t.mint, owner.publicKey, false, t.program)

/** The swap as an unsigned web3.js transaction, to read it back as wallets do. */
const swapTransaction = (p: SwapTxParameters) => new VersionedTransaction(VersionedMessage.deserialize(swapMessage(p)))

/** As the build route hands it out: co-signed by the solver, wire format. */
const coSigned = (p: SwapTxParameters) => {
  const tx = swapTransaction(p)
  tx.signatures[0] = signMessage(solver, tx.message.serialize())
  return Buffer.from(tx.serialize())
}

describe('swapInstructions', () => {
  it('moves exactly the input to the solver and the output to the user, and nothing else', () => {
    const ixs = swapInstructions(params)
    expect(ixs.map((ix) => ix.programId.toBase58())).toEqual(
      [TOKEN_PROGRAM_ID, TOKEN_2022_PROGRAM_ID, MEMO_PROGRAM_ID].map(String),
    )
    const pay = decodeTransferCheckedInstruction(ixs[0]!, TOKEN_PROGRAM_ID)
    expect(pay.keys.source.pubkey.equals(ata(user, usdc))).toBe(true)
    expect(pay.keys.destination.pubkey.equals(ata(solver, usdc))).toBe(true)
    expect(pay.keys.owner.pubkey.equals(user.publicKey)).toBe(true)
    expect(pay.data).toMatchObject({ amount: 12_500_000n, decimals: 6 })
    const payout = decodeTransferCheckedInstruction(ixs[1]!, TOKEN_2022_PROGRAM_ID)
    expect(payout.keys.source.pubkey.equals(ata(solver, pusd))).toBe(true)
    expect(payout.keys.destination.pubkey.equals(ata(user, pusd))).toBe(true)
    expect(payout.keys.owner.pubkey.equals(solver.publicKey)).toBe(true)
    expect(payout.data).toMatchObject({ amount: 12_500_000_000n, decimals: 9 })
    expect(ixs[2]!.keys).toEqual([])
  })

  it("creates the user's output account, and the solver's input account, only when asked, paid by the solver", () => {
    const ixs = swapInstructions({ ...params, create: { userOutput: true, solverInput: true } })
    expect(ixs).toHaveLength(5)
    for (const [ix, owner, token] of [
      [ixs[0]!, user, pusd],
      [ixs[1]!, solver, usdc],
    ] as const) {
      expect(ix.programId.equals(ASSOCIATED_TOKEN_PROGRAM_ID)).toBe(true)
      expect([...ix.data]).toEqual([1]) // CreateIdempotent: a racing creation does not fail the swap
      expect(ix.keys[0]!.pubkey.equals(solver.publicKey)).toBe(true)
      expect(ix.keys[1]!.pubkey.equals(ata(owner, token))).toBe(true)
      expect(ix.keys[2]!.pubkey.equals(owner.publicKey)).toBe(true)
    }
  })
})

describe('swapTransaction', () => {
  it('is a legacy transaction the solver pays for and signs first; only the user signature is missing', () => {
    const back = Transaction.from(coSigned(params))
    expect(back.feePayer!.equals(solver.publicKey)).toBe(true)
    expect(back.recentBlockhash).toBe(params.blockhash)
    expect(back.signatures.map((s) => [s.publicKey.toBase58(), s.signature !== null])).toEqual([
      [solver.publicKey.toBase58(), true],
      [user.publicKey.toBase58(), false],
    ])
    expect(back.verifySignatures(false)).toBe(true)
    back.partialSign(user)
    expect(back.verifySignatures(true)).toBe(true)
    expect(VersionedTransaction.deserialize(coSigned(params)).version).toBe('legacy')
  })

  it('is the message web3.js compiles from the same instructions, byte for byte, with or without account creation', () => {
    for (const create of [
      { userOutput: false, solverInput: false },
      { userOutput: true, solverInput: true },
      { userOutput: true, solverInput: false },
    ]) {
      const p = { ...params, create }
      const web3 = new TransactionMessage({
        payerKey: p.solver,
        recentBlockhash: p.blockhash,
        instructions: swapInstructions(p),
      }).compileToLegacyMessage()
      expect(Buffer.from(swapMessage(p))).toEqual(Buffer.from(web3.serialize()))
    }
  })

  it('gives identical requests distinct transactions through the memo', () => {
    const a = VersionedTransaction.deserialize(coSigned(params))
    const b = VersionedTransaction.deserialize(coSigned({ ...params, memo: 'parx:entry:01' }))
    expect(bs58.encode(a.signatures[0]!)).not.toBe(bs58.encode(b.signatures[0]!))
  })
})
