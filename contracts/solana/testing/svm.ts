/**
 * litesvm with OUR built origin_settler and dest_settler loaded, plus the SPL Token helpers the
 * programs' tests and the bench need. Transactions are built with @solana/web3.js and handed to
 * litesvm in its @solana/kit wire form.
 */
import { getTransactionDecoder } from '@solana/kit'
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createInitializeMint2Instruction,
  createMintToInstruction,
  getAssociatedTokenAddressSync,
  MINT_SIZE,
  TOKEN_PROGRAM_ID,
} from '@solana/spl-token'
import { Keypair, type PublicKey, SystemProgram, Transaction, type TransactionInstruction } from '@solana/web3.js'
import { Clock, FailedTransactionMetadata, LiteSVM } from 'litesvm'
import { type TransactionErrorJson, transactionErrorJson } from '../../../daemon/solana-rpc/index.js'
import { PROGRAM_DATA_AUTHORITY_OPTION, programDataAddress } from '../client.js'
import { programBytes } from '../programs.js'

type Address = Parameters<LiteSVM['getAccount']>[0]
type KitTransaction = Parameters<LiteSVM['sendTransaction']>[0]

export type Sent = { ok: boolean; err: TransactionErrorJson | null; logs: string[]; computeUnits: number }

export class SettlementSvm {
  readonly svm = new LiteSVM()
  readonly origin = Keypair.generate().publicKey
  readonly dest = Keypair.generate().publicKey

  constructor() {
    this.svm.addProgram(this.origin.toBase58() as Address, programBytes('origin_settler'))
    this.svm.addProgram(this.dest.toBase58() as Address, programBytes('dest_settler'))
  }

  /**
   * Records `authority` as the program's upgrade authority in its ProgramData account, as a deploy
   * with that authority would (litesvm loads programs without one).
   */
  setUpgradeAuthority(program: PublicKey, authority: PublicKey): void {
    const address = programDataAddress(program).toBase58() as Address
    const account = this.svm.getAccount(address)
    if (!account.exists) throw new Error(`no ProgramData for ${program.toBase58()}`)
    const data = new Uint8Array(account.data)
    data[PROGRAM_DATA_AUTHORITY_OPTION] = 1
    data.set(authority.toBytes(), PROGRAM_DATA_AUTHORITY_OPTION + 1)
    this.svm.setAccount({ ...account, data } as unknown as Parameters<LiteSVM['setAccount']>[0])
  }

  /** Signs with `signers` (the first pays fees) and sends; a failure comes back, it is not thrown. */
  send(instructions: TransactionInstruction[], signers: Keypair[]): Sent {
    const tx = new Transaction().add(...instructions)
    tx.feePayer = signers[0]!.publicKey
    tx.recentBlockhash = this.svm.latestBlockhash()
    tx.sign(...signers)
    const result = this.svm.sendTransaction(getTransactionDecoder().decode(tx.serialize()) as unknown as KitTransaction)
    // An identical retry would otherwise be refused as AlreadyProcessed.
    this.svm.expireBlockhash()
    if (result instanceof FailedTransactionMetadata) {
      const meta = result.meta()
      return {
        ok: false,
        err: transactionErrorJson(result.err()),
        logs: meta.logs(),
        computeUnits: Number(meta.computeUnitsConsumed()),
      }
    }
    return { ok: true, err: null, logs: result.logs(), computeUnits: Number(result.computeUnitsConsumed()) }
  }

  airdrop(to: PublicKey, lamports = 10_000_000_000n): void {
    this.svm.airdrop(to.toBase58() as Address, lamports as never)
  }

  lamports(of: PublicKey): bigint {
    return BigInt(this.svm.getBalance(of.toBase58() as Address) ?? 0n)
  }

  data(of: PublicKey): Uint8Array | null {
    const a = this.svm.getAccount(of.toBase58() as Address)
    return a.exists ? new Uint8Array(a.data) : null
  }

  now(): bigint {
    return this.svm.getClock().unixTimestamp
  }

  setNow(unixTimestamp: bigint): void {
    const c = this.svm.getClock()
    this.svm.setClock(new Clock(c.slot + 1n, c.epochStartTimestamp, c.epoch, c.leaderScheduleEpoch, unixTimestamp))
  }

  createMint(payer: Keypair, decimals = 6): PublicKey {
    const mint = Keypair.generate()
    const sent = this.send(
      [
        SystemProgram.createAccount({
          fromPubkey: payer.publicKey,
          newAccountPubkey: mint.publicKey,
          space: MINT_SIZE,
          programId: TOKEN_PROGRAM_ID,
          lamports: Number(this.svm.minimumBalanceForRentExemption(BigInt(MINT_SIZE))),
        }),
        createInitializeMint2Instruction(mint.publicKey, decimals, payer.publicKey, null),
      ],
      [payer, mint],
    )
    if (!sent.ok) throw new Error(`create mint: ${JSON.stringify(sent.err)}`)
    return mint.publicKey
  }

  /** The owner's associated token account, created (by `payer`) and funded with `amount`. */
  tokenAccount(payer: Keypair, mint: PublicKey, owner: PublicKey, amount = 0n): PublicKey {
    const ata = getAssociatedTokenAddressSync(mint, owner, true)
    const ixs = [createAssociatedTokenAccountIdempotentInstruction(payer.publicKey, ata, owner, mint)]
    if (amount > 0n) ixs.push(createMintToInstruction(mint, ata, payer.publicKey, amount))
    const sent = this.send(ixs, [payer])
    if (!sent.ok) throw new Error(`token account: ${JSON.stringify(sent.err)}`)
    return ata
  }

  tokenBalance(account: PublicKey): bigint {
    const d = this.data(account)
    return d ? Buffer.from(d).readBigUInt64LE(64) : 0n
  }
}

/** The custom error code of a failed program instruction, if that is how it failed. */
export function customError(sent: Sent): number | undefined {
  const e = sent.err as { InstructionError?: [number, { Custom?: number }] } | null
  return e?.InstructionError?.[1]?.Custom
}
