import { randomBytes } from 'node:crypto'
import {
  type Keypair,
  PublicKey,
  type Signer,
  SystemProgram,
  Transaction,
  type TransactionInstruction,
  type VersionedMessage,
} from '@solana/web3.js'
import { signMessage } from '../../src/sdk/solana/sign.js'
import { solanaKeypairFromSeed } from '../keys/solana-keypair.js'
import { AccountStore } from './account-store.js'
import { ChainClock, type ChainClockOptions, type LatestBlockhash } from './chain-clock.js'
import type { ChainDb } from './chain-db.js'
import { transactionFee } from './fee.js'
import { SLOTS_PER_EPOCH } from './genesis.js'
import { GroupCommit, type Landed } from './group-commit.js'
import { Listeners } from './listeners.js'
import { MetaStore } from './meta-store.js'
import type { AccountState } from './spl-token-state.js'
import { type ProcessedEvent, TransactionProcessor } from './transaction-processor.js'
import { rejected, type TransactionErrorJson } from './tx-error.js'
import { TxStore } from './tx-store.js'
import { type Execution, Vm } from './vm.js'
import {
  decodeWireTransaction,
  type PreflightTransaction,
  readCanonicalLegacy,
  resolveAccountKeys,
  withBlockhash,
} from './wire-transaction.js'

export type Simulation = Execution & {
  slot: number
  /** The transaction's account keys, which instruction indexes refer to. */
  keys: string[]
  /** What the simulated transaction would leave behind, for the accounts it touched. */
  post: Map<string, AccountState | null>
  replacementBlockhash: LatestBlockhash | null
}

export type CreateLocalSvmParameters = ChainClockOptions & { db: ChainDb }

const SYSTEM_PROGRAM = SystemProgram.programId.toBase58()
// A node answers statuses from its status cache (~300 slots) unless asked to search history.
const STATUS_CACHE_SLOTS = 300

export type SignatureStatusJson = {
  slot: number
  confirmations: null
  err: TransactionErrorJson | null
  status: { Ok: null } | { Err: TransactionErrorJson }
  confirmationStatus: 'finalized'
}
// The faucet behind requestAirdrop is refilled from thin air; this is what it keeps on hand.
const FAUCET_RESERVE = 1_000_000n * 1_000_000_000n

/**
 * The embedded Solana cluster: a LiteSVM whose accounts and transaction history live in SQLite,
 * with a clock and blockhashes that advance like a cluster's. Transactions are executed one at a
 * time, in order, and committed in groups (group-commit.ts) before the caller hears back.
 *
 * @example
 * const svm = createLocalSvm({ db: prepareChainDb(new Database(file)) })
 * const signature = await svm.submit(tx.serialize())
 */
export class LocalSvm {
  readonly db: ChainDb
  readonly clock: ChainClock
  readonly txs: TxStore
  readonly onSlot = new Listeners<number>()
  readonly onTransaction = new Listeners<ProcessedEvent>()
  private readonly vm = new Vm()
  private readonly accounts: AccountStore
  private readonly processor: TransactionProcessor
  private readonly queue: GroupCommit
  private readonly faucet: Keypair
  private lastSlot = -1

  constructor(params: CreateLocalSvmParameters) {
    this.db = params.db
    const meta = new MetaStore(params.db)
    this.accounts = new AccountStore(params.db)
    this.txs = new TxStore(params.db)
    this.clock = new ChainClock(meta, params, this.txs.maxSlot())
    for (const { address, state } of this.accounts.all()) this.vm.setAccount(address, state)
    this.faucet = solanaKeypairFromSeed(
      Buffer.from(
        meta.getOrCreate('faucet_seed', () => randomBytes(32).toString('hex')),
        'hex',
      ),
    )
    this.queue = new GroupCommit(params.db)
    this.processor = new TransactionProcessor(
      { vm: this.vm, clock: this.clock, accounts: this.accounts, txs: this.txs },
      (event) => this.onTransaction.emit(event),
    )
    this.tick()
  }

  /** Brings the Clock sysvar up to wall time; returns the current slot. */
  tick(): number {
    const slot = this.clock.slot()
    if (slot !== this.lastSlot) {
      const epochStart = slot - (slot % SLOTS_PER_EPOCH)
      this.vm.setClock(slot, this.clock.unixTimestamp(slot), this.clock.unixTimestamp(epochStart))
      this.lastSlot = slot
      this.onSlot.emit(slot)
    }
    return slot
  }

  latestBlockhash(): LatestBlockhash {
    this.tick()
    return this.clock.latest()
  }

  /** Test hook: jump `slots` ahead (blockhashes issued before expire after `blockhashValidity`). */
  advanceSlots(slots: number): number {
    this.clock.advance(slots)
    return this.tick()
  }

  getAccount(address: string): AccountState | null {
    return this.vm.getAccount(address)
  }

  /** Writes an account outside any transaction (setup, faucet refills); persisted like the rest. */
  setAccount(address: string, state: AccountState | null, landed?: Landed[]): void {
    const slot = this.tick()
    if (landed) {
      const before = this.vm.getAccount(address)
      landed.push({ undo: () => this.vm.setAccount(address, before), announce: () => {} })
    }
    this.vm.setAccount(address, state)
    this.accounts.save(address, state, slot)
  }

  programAccounts(program: string): { address: string; state: AccountState }[] {
    return this.vm.programAccounts(program)
  }

  minimumBalanceForRentExemption(dataLength: number): bigint {
    return this.vm.minimumBalanceForRentExemption(dataLength)
  }

  /** Loads a program for this run (programs come from committed `.so` files at every start). */
  addProgram(programId: string, bytes: Uint8Array): void {
    this.vm.addProgram(programId, bytes)
  }

  /**
   * Executes a signed wire transaction; resolves with its signature once it is persisted.
   * Throws `SolanaTxError` when the cluster refuses it (nothing ran, nothing was charged).
   */
  async submit(wire: Uint8Array, opts: { skipPreflight?: boolean } = {}): Promise<string> {
    const decoded = decodeWireTransaction(wire)
    return this.queue.run((landed) =>
      this.processor.process(decoded, { skipPreflight: opts.skipPreflight ?? false, slot: this.tick() }, landed),
    )
  }

  /**
   * Signs `instructions` with `signers` (the first pays) and submits them. Picks the newest valid
   * blockhash that gives an unused signature, so two identical requests both land.
   */
  sendInstructions(instructions: TransactionInstruction[], signers: [Signer, ...Signer[]]): Promise<string> {
    return this.queue.run((landed) => this.signAndProcess(instructions, signers, landed))
  }

  /** Sends `lamports` from the cluster's faucet: a real transfer with a signature to confirm. */
  airdrop(to: string, lamports: bigint): Promise<string> {
    return this.queue.run((landed) => {
      // Refilled inside the queue, so transfers queued ahead cannot drain it in between.
      const address = this.faucet.publicKey.toBase58()
      if ((this.vm.getAccount(address)?.lamports ?? 0n) < lamports + 1_000_000_000n) {
        this.setAccount(
          address,
          { lamports: lamports + FAUCET_RESERVE, owner: SYSTEM_PROGRAM, data: new Uint8Array(), executable: false },
          landed,
        )
      }
      const transfer = SystemProgram.transfer({
        fromPubkey: this.faucet.publicKey,
        toPubkey: new PublicKey(to),
        lamports,
      })
      return this.signAndProcess([transfer], [this.faucet], landed)
    })
  }

  private signAndProcess(
    instructions: TransactionInstruction[],
    signers: [Signer, ...Signer[]],
    landed: Landed[],
  ): string {
    const slot = this.tick()
    for (const { blockhash } of this.clock.validBlockhashes()) {
      const tx = new Transaction({ feePayer: signers[0].publicKey, blockhash, lastValidBlockHeight: 0 }).add(
        ...instructions,
      )
      // Signed with Node's native ed25519 and not verified again by web3.js (the runtime checks
      // every signature): web3.js signs and verifies in JavaScript, ~5 ms per faucet transaction.
      const message = tx.serializeMessage()
      for (const signer of signers)
        tx.addSignature(signer.publicKey, Buffer.from(signMessage(signer as Keypair, message)))
      const decoded = decodeWireTransaction(tx.serialize({ verifySignatures: false }))
      if (!this.txs.has(decoded.signature))
        return this.processor.process(decoded, { skipPreflight: false, slot }, landed)
    }
    throw rejected('AlreadyProcessed')
  }

  /**
   * Runs a transaction without committing it. As on a node, signatures are not checked unless
   * asked, and `replaceRecentBlockhash` swaps in the latest blockhash first; `post` holds the
   * accounts it would leave behind only when `accounts` asks for them.
   */
  simulate(
    wire: Uint8Array,
    opts: { sigVerify?: boolean; replaceRecentBlockhash?: boolean; accounts?: { addresses: string[] } } = {},
  ): Simulation {
    let decoded = decodeWireTransaction(wire)
    const slot = this.tick()
    const latest = this.clock.latest()
    if (opts.replaceRecentBlockhash) decoded = withBlockhash(decoded, latest.blockhash)
    const keys = resolveAccountKeys(decoded.tx.message, (a) => this.vm.getAccount(a), decoded.staticKeys).keys
    const base = { slot, keys, replacementBlockhash: opts.replaceRecentBlockhash ? latest : null }
    // The accounts left behind are only copied out for a caller that asked for some.
    const result = this.checkedRun(decoded, opts.sigVerify ?? false, () =>
      this.vm.simulate(decoded, opts.sigVerify ?? false, { post: opts.accounts !== undefined }),
    )
    if (!result)
      return {
        ...base,
        err: 'BlockhashNotFound',
        logs: [],
        unitsConsumed: 0,
        innerInstructions: [],
        returnData: null,
        post: new Map(),
      }
    return { ...base, ...result }
  }

  /**
   * `simulate` for the daemon's own preflight (the swap build's): the same checks and run, but
   * only the verdict and the logs come back, without the account keys, inner instructions and
   * return data an RPC answer carries.
   */
  preflight(wire: Uint8Array, opts: { sigVerify: boolean }): Pick<Simulation, 'err' | 'logs'> {
    const decoded = readCanonicalLegacy(wire) ?? decodeWireTransaction(wire)
    this.tick()
    return (
      this.checkedRun(decoded, opts.sigVerify, () => this.vm.simulateOutcome(decoded, opts.sigVerify)) ?? {
        err: 'BlockhashNotFound',
        logs: [],
      }
    )
  }

  /**
   * A simulation's run between the checks a node makes around it: undefined for a blockhash no
   * longer valid (the caller answers BlockhashNotFound), refused when it must be signed and is not,
   * or when the VM finds its signatures or its layout wrong.
   */
  private checkedRun<R extends { err: unknown }>(
    tx: PreflightTransaction,
    sigVerify: boolean,
    run: () => R,
  ): R | undefined {
    if (!this.clock.isBlockhashValid(tx.recentBlockhash)) return undefined
    if (sigVerify && !tx.fullySigned) throw rejected('SignatureFailure')
    const result = run()
    if (result.err === 'SignatureFailure') throw rejected('SignatureFailure')
    if (result.err === 'SanitizeFailure') throw rejected('SanitizeFailure')
    return result
  }

  /**
   * What getSignatureStatuses answers for `signature`: null when unknown (or older than the status cache without
   * `searchHistory`).
   */
  signatureStatus(signature: string, searchHistory: boolean): SignatureStatusJson | null {
    const tx = this.txs.summary(signature)
    if (!tx || (!searchHistory && tx.slot < this.tick() - STATUS_CACHE_SLOTS)) return null
    // One validator, no forks: a processed transaction is final at once.
    return {
      slot: tx.slot,
      confirmations: null,
      err: tx.err,
      status: tx.err === null ? { Ok: null } : { Err: tx.err },
      confirmationStatus: 'finalized',
    }
  }

  /** The fee `message` would pay, or null when its blockhash is not (or no longer) valid. */
  feeForMessage(message: VersionedMessage): bigint | null {
    this.tick()
    return this.clock.isBlockhashValid(message.recentBlockhash) ? transactionFee(message) : null
  }
}

export function createLocalSvm(params: CreateLocalSvmParameters): LocalSvm {
  return new LocalSvm(params)
}
