import type { AccountStore } from './account-store.js'
import type { ChainClock } from './chain-clock.js'
import { transactionFee } from './fee.js'
import type { Landed } from './group-commit.js'
import type { AccountState } from './spl-token-state.js'
import { tokenBalances } from './token-balances.js'
import { rejected, SolanaTxError, type TransactionErrorJson } from './tx-error.js'
import type { TxRecord, TxStore } from './tx-store.js'
import type { Vm } from './vm.js'
import { type DecodedTransaction, resolveAccountKeys } from './wire-transaction.js'

export type ProcessedEvent = {
  signature: string
  slot: number
  err: TransactionErrorJson | null
  changed: { address: string; state: AccountState | null }[]
}

/** Indexes into the resolved keys (static, then loaded writable, then loaded read-only) the message marks writable. */
function writableIndexes(d: DecodedTransaction, loadedWritable: number): Set<number> {
  const message = d.tx.message
  const out = new Set<number>()
  const statics = message.staticAccountKeys.length
  for (let i = 0; i < statics; i++) if (message.isAccountWritable(i)) out.add(i)
  for (let i = 0; i < loadedWritable; i++) out.add(statics + i)
  return out
}

function sameAccount(a: AccountState | null, b: AccountState | null): boolean {
  if (!a || !b) return a === b
  return (
    a.lamports === b.lamports &&
    a.owner === b.owner &&
    a.executable === b.executable &&
    Buffer.compare(Buffer.from(a.data), Buffer.from(b.data)) === 0
  )
}

/**
 * Executes one transaction the way a cluster would and records it: the checks a leader makes
 * (duplicate, blockhash age, signatures), the preflight an RPC node makes (a failed run is taken
 * back and refused), then — before anyone hears about the result — the SQLite writes of every account it
 * changed and of its history record, committed with its group (group-commit.ts). If they fail the
 * in-memory state is rolled back too, so memory and disk never disagree about money.
 */
export class TransactionProcessor {
  constructor(
    private readonly deps: { vm: Vm; clock: ChainClock; accounts: AccountStore; txs: TxStore },
    private readonly onProcessed: (event: ProcessedEvent) => void,
  ) {}

  /**
   * Runs inside a GroupCommit task (its SQLite savepoint): what lands is pushed to `landed`
   * (how to take it back, what to announce once committed) before it is written.
   */
  process(d: DecodedTransaction, opts: { skipPreflight: boolean; slot: number }, landed: Landed[]): string {
    const { vm, clock, txs } = this.deps
    // A cluster dedups by signature; with preflight the node reports it, without it the
    // resend is a no-op that answers the same signature (clients rebroadcast like this).
    if (txs.has(d.signature)) {
      if (opts.skipPreflight) return d.signature
      throw rejected('AlreadyProcessed')
    }
    if (!clock.isBlockhashValid(d.recentBlockhash)) throw rejected('BlockhashNotFound')
    if (!d.fullySigned) throw rejected('SignatureFailure')
    const { keys, loaded } = resolveAccountKeys(d.tx.message, (a) => vm.getAccount(a), d.staticKeys)
    const pre = keys.map((k) => vm.getAccount(k))
    let result
    try {
      result = vm.send(d)
    } catch (e) {
      throw new SolanaTxError('malformed', `invalid transaction: ${e instanceof Error ? e.message : String(e)}`)
    }
    // The runtime never writes a read-only account: only the writable ones are read again.
    const writable = writableIndexes(d, loaded.writable.length)
    const post = keys.map((k, i) => (writable.has(i) ? vm.getAccount(k) : (pre[i] ?? null)))
    const payerPre = pre[0]?.lamports ?? 0n
    const payerPost = post[0]?.lamports ?? 0n
    // The preflight an RPC node runs is this same run on this same state, so a transaction is
    // executed once: a failure under preflight is taken back (what it wrote, the fee included) and
    // refused as the simulation would have refused it. Running a simulation first doubled the
    // runtime's work for every transaction that lands.
    if (result.err !== null && !opts.skipPreflight) {
      keys.forEach((address, i) => {
        if (writable.has(i) && !sameAccount(pre[i] ?? null, post[i] ?? null)) vm.setAccount(address, pre[i] ?? null)
      })
      throw rejected(result.err, result.logs, result.unitsConsumed)
    }
    // A failure that charged no fee never landed (bad signature, unknown payer, ...): no record.
    if (result.err !== null && payerPre === payerPost) throw rejected(result.err, result.logs, result.unitsConsumed)

    const fee = result.err === null ? transactionFee(d.tx.message, d.staticKeys) : payerPre - payerPost
    const record: TxRecord = {
      signature: d.signature,
      slot: opts.slot,
      blockTime: clock.unixTimestamp(opts.slot),
      err: result.err,
      raw: d.bytes,
      meta: {
        version: d.version,
        fee: fee.toString(),
        logs: result.logs,
        preBalances: pre.map((a) => (a?.lamports ?? 0n).toString()),
        postBalances: post.map((a) => (a?.lamports ?? 0n).toString()),
        preTokenBalances: tokenBalances(keys, pre, (a) => vm.getAccount(a)),
        postTokenBalances: tokenBalances(keys, post, (a) => vm.getAccount(a)),
        innerInstructions: result.innerInstructions,
        loadedAddresses: loaded,
        computeUnitsConsumed: result.unitsConsumed,
        returnData: result.returnData,
      },
    }
    const changed = keys.flatMap((address, i) =>
      !writable.has(i) || sameAccount(pre[i] ?? null, post[i] ?? null)
        ? []
        : [{ address, state: post[i] ?? null, before: pre[i] ?? null }],
    )
    const event: ProcessedEvent = { signature: d.signature, slot: opts.slot, err: result.err, changed }
    landed.push({
      undo: () => {
        for (const c of changed) vm.setAccount(c.address, c.before)
      },
      announce: () => this.onProcessed(event),
    })
    for (const c of changed) this.deps.accounts.save(c.address, c.state, opts.slot)
    txs.insert(record, keys)
    return d.signature
  }
}
