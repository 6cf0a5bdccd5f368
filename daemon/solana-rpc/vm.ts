import { PublicKey } from '@solana/web3.js'
import bs58 from 'bs58'
import { Account, Clock, EpochSchedule, FailedTransactionMetadata, LiteSVM, type TransactionMetadata } from 'litesvm'
import { BaseError } from '../../src/errors/base.js'
import { SLOTS_PER_EPOCH } from './genesis.js'
import type { AccountState } from './spl-token-state.js'
import { type TransactionErrorJson, transactionErrorJson } from './tx-error.js'
import type { InnerInstructionsJson, TxMeta } from './tx-store.js'
import type { DecodedTransaction } from './wire-transaction.js'

// litesvm's TS surface speaks @solana/kit's branded types; we only ever hand it plain strings.
type Address = Parameters<LiteSVM['getAccount']>[0]

type NativeAccount = { lamports(): bigint; data(): Uint8Array; owner(): Uint8Array; executable(): boolean }
type NativeSimulation = {
  meta(): TransactionMetadata
  postAccounts(): { address: Uint8Array; account(): NativeAccount }[]
}
/**
 * litesvm's native binding (`LiteSVM.inner`, litesvm 1.5), for the hot calls. Its TS wrapper
 * re-encodes every transaction through @solana/kit (we already hold the checked wire bytes) and
 * converts every address through kit's base58 codec: a third of what sending a transaction cost
 * in the sol bench profile. Setup, clock and program loads still go through the wrapper.
 */
type Native = {
  getAccount(pubkey: Uint8Array): NativeAccount | null
  setAccount(pubkey: Uint8Array, account: Account): void
  sendLegacyTransaction(bytes: Uint8Array): TransactionMetadata | FailedTransactionMetadata
  sendVersionedTransaction(bytes: Uint8Array): TransactionMetadata | FailedTransactionMetadata
  simulateLegacyTransaction(bytes: Uint8Array): NativeSimulation | FailedTransactionMetadata
  simulateVersionedTransaction(bytes: Uint8Array): NativeSimulation | FailedTransactionMetadata
}

export type Execution = {
  err: TransactionErrorJson | null
  logs: string[]
  unitsConsumed: number
  innerInstructions: InnerInstructionsJson[]
  returnData: TxMeta['returnData']
}

const CLOCK_SYSVAR = 'SysvarC1ock11111111111111111111111111111111'
// Accounts kept decoded: about what a few hundred swaps in flight touch, programs and mints included.
const CACHED_ACCOUNTS = 4096

/**
 * The one place that talks to litesvm. Blockhash checks and the transaction history are ours
 * (a cluster keeps 150 blockhashes valid, litesvm only its latest; our history survives restarts),
 * so litesvm's are off.
 *
 * Reads are cached: every litesvm read copies the account out of Rust and converts its addresses
 * through @solana/kit's base58 codec, and a transaction reads each of its accounts before and
 * after running (the token program's account is its whole ELF). What can change an account goes
 * through here and drops it from the cache: a transaction (its writable keys; a read-only account
 * cannot change), `setAccount`, the clock (its sysvar) and program loads (everything).
 */
export class Vm {
  private readonly svm = new LiteSVM().withBlockhashCheck(false).withTransactionHistory(0n)
  private readonly native = (this.svm as unknown as { inner: Native }).inner
  private readonly cache = new Map<string, AccountState | null>()

  constructor() {
    this.svm.setEpochSchedule(new EpochSchedule(BigInt(SLOTS_PER_EPOCH), BigInt(SLOTS_PER_EPOCH), false, 0n, 0n))
    if (typeof this.native?.sendLegacyTransaction !== 'function')
      throw new BaseError('INTERNAL', 'litesvm: native binding not found (LiteSVM.inner); check the litesvm version')
  }

  /** The account as it is now; treat it as read-only (it may be shared with other readers). */
  getAccount(address: string): AccountState | null {
    const cached = this.cache.get(address)
    if (cached !== undefined) return cached
    const a = this.native.getAccount(bs58.decode(address))
    // A zero-lamport account does not exist on a cluster: it is garbage collected.
    const s = a ? nativeState(a) : null
    if (this.cache.size >= CACHED_ACCOUNTS) this.cache.clear()
    this.cache.set(address, s)
    return s
  }

  setAccount(address: string, state: AccountState | null): void {
    this.cache.delete(address)
    const s = state ?? {
      lamports: 0n,
      owner: '11111111111111111111111111111111',
      data: new Uint8Array(),
      executable: false,
    }
    // Straight to the binding, as the wrapper does after converting both addresses through kit's
    // base58 codec: every start sets every stored account, and that conversion was a fifth of the
    // embedded cluster's set-up in the profile of \`parx serve\` (start-up cost, grows with the accounts).
    this.native.setAccount(
      bs58.decode(address),
      new Account(s.lamports, s.data, bs58.decode(s.owner), s.executable, 0n),
    )
  }

  programAccounts(program: string): { address: string; state: AccountState }[] {
    return this.svm.getProgramAccounts(program as Address).flatMap((a) => {
      const s = state(a)
      return s ? [{ address: a.address as string, state: s }] : []
    })
  }

  minimumBalanceForRentExemption(dataLength: number): bigint {
    return this.svm.minimumBalanceForRentExemption(BigInt(dataLength))
  }

  setClock(slot: number, unixTimestamp: number, epochStartTimestamp: number): void {
    // litesvm writes the Clock sysvar account and nothing else.
    this.cache.delete(CLOCK_SYSVAR)
    const epoch = BigInt(Math.floor(slot / SLOTS_PER_EPOCH))
    this.svm.setClock(new Clock(BigInt(slot), BigInt(epochStartTimestamp), epoch, epoch + 1n, BigInt(unixTimestamp)))
  }

  addProgram(programId: string, bytes: Uint8Array): void {
    this.cache.clear()
    this.svm.addProgram(programId as Address, bytes)
  }

  send(tx: DecodedTransaction): Execution {
    try {
      return execution(
        tx.version === 'legacy'
          ? this.native.sendLegacyTransaction(tx.bytes)
          : this.native.sendVersionedTransaction(tx.bytes),
      )
    } finally {
      this.forgetWritable(tx)
    }
  }

  /**
   * Runs without committing. With `post`, the accounts the transaction would leave behind come
   * back too (a preflight does not need them, and copying them out, programs included, costs more
   * than the run).
   */
  simulate(
    tx: DecodedTransaction,
    sigVerify: boolean,
    opts: { post?: boolean } = {},
  ): Execution & { post: Map<string, AccountState | null> } {
    const result = this.simulateNative(tx, sigVerify)
    if (result instanceof FailedTransactionMetadata) return { ...execution(result), post: new Map() }
    const post = new Map<string, AccountState | null>()
    if (opts.post ?? true)
      for (const a of result.postAccounts()) post.set(bs58.encode(a.address), nativeState(a.account()))
    return { ...execution(result.meta()), post }
  }

  /**
   * Runs without committing and keeps only the verdict and the logs: what a preflight reads. The
   * inner instructions and return data an RPC answer carries are never converted (their base58).
   */
  simulateOutcome(
    tx: Pick<DecodedTransaction, 'version' | 'bytes'>,
    sigVerify: boolean,
  ): Pick<Execution, 'err' | 'logs'> {
    const result = this.simulateNative(tx, sigVerify)
    return {
      err: result instanceof FailedTransactionMetadata ? transactionErrorJson(result.err()) : null,
      logs: result.meta().logs(),
    }
  }

  /** One run without committing, signatures checked only with `sigVerify` (the VM checks them again after). */
  private simulateNative(
    tx: Pick<DecodedTransaction, 'version' | 'bytes'>,
    sigVerify: boolean,
  ): NativeSimulation | FailedTransactionMetadata {
    this.svm.withSigverify(sigVerify)
    try {
      return tx.version === 'legacy'
        ? this.native.simulateLegacyTransaction(tx.bytes)
        : this.native.simulateVersionedTransaction(tx.bytes)
    } finally {
      this.svm.withSigverify(true)
    }
  }

  /** Drops what a transaction may have written: its writable keys (all, when it loads keys from lookup tables). */
  private forgetWritable(tx: DecodedTransaction): void {
    const message = tx.tx.message
    if (message.addressTableLookups.length > 0) return this.cache.clear()
    tx.staticKeys.forEach((key, i) => {
      if (message.isAccountWritable(i)) this.cache.delete(key)
    })
  }
}

type KitAccount = { lamports: bigint; programAddress: string; data: ArrayLike<number>; executable: boolean }

function state(a: KitAccount): AccountState | null {
  if (a.lamports === 0n) return null
  return { lamports: a.lamports, owner: a.programAddress, data: a.data as Uint8Array, executable: a.executable }
}

// Owners are few (the system and token programs, a handful of others): their base58 is kept.
const owners = new Map<string, string>()

function nativeState(a: NativeAccount): AccountState | null {
  const lamports = a.lamports()
  if (lamports === 0n) return null
  const ownerBytes = a.owner()
  const key = Buffer.from(ownerBytes.buffer, ownerBytes.byteOffset, ownerBytes.byteLength).toString('latin1')
  let owner = owners.get(key)
  if (owner === undefined) {
    owner = bs58.encode(ownerBytes)
    if (owners.size >= 1024) owners.clear()
    owners.set(key, owner)
  }
  return { lamports, owner, data: a.data(), executable: a.executable() }
}

function execution(result: TransactionMetadata | FailedTransactionMetadata): Execution {
  const failed = result instanceof FailedTransactionMetadata
  const meta = failed ? result.meta() : result
  const ret = meta.returnData()
  const retData = ret.data()
  return {
    err: failed ? transactionErrorJson(result.err()) : null,
    logs: meta.logs(),
    unitsConsumed: Number(meta.computeUnitsConsumed()),
    innerInstructions: meta.innerInstructions().flatMap((list, index) =>
      list.length === 0
        ? []
        : [
            {
              index,
              instructions: list.map((inner) => {
                const ix = inner.instruction()
                return {
                  programIdIndex: ix.programIdIndex(),
                  accounts: [...ix.accounts()],
                  data: bs58.encode(ix.data()),
                  stackHeight: inner.stackHeight(),
                }
              }),
            },
          ],
    ),
    returnData:
      retData.length === 0
        ? null
        : {
            programId: new PublicKey(ret.programId()).toBase58(),
            data: [Buffer.from(retData).toString('base64'), 'base64'],
          },
  }
}
