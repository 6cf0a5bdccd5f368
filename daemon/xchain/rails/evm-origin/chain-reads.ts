import { PublicKey } from '@solana/web3.js'
import type { Address, Hex, PublicClient } from 'viem'
import * as SourceEscrow from '../../../../contracts/evm/artifacts/SourceEscrow.js'
import {
  decodeFillRecord,
  FILL_RECORD_LEN,
  type FillRecordAccount,
  fillRecordPda,
} from '../../../../contracts/solana/client.js'
import type { EvmOrder } from '../../../../contracts/xchain/statement.js'
import { BaseError } from '../../../../src/errors/index.js'
import type { SolanaReads } from '../../../chains/solana/reads.js'
import { type Call, fn, multicall, viewCall } from '../../../swap/calldata.js'
import type { SourceRead } from '../../rail.js'

/**
 * The reads of the evm-origin rail, each on a given client or connection: the solver's worker and
 * each attestor call them with clients of their own, so an attestor's view of the chains is its own.
 */

/** A Base read; a node that does not answer becomes CHAIN_UNAVAILABLE (503) instead of a 500. */
export async function baseRpc<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read()
  } catch (e) {
    if (e instanceof BaseError) throw e
    throw new BaseError(
      'CHAIN_UNAVAILABLE',
      `Base did not answer (${e instanceof Error ? e.message.split('\n')[0] : String(e)}); retry shortly`,
      { cause: e },
    )
  }
}

/** SourceEscrow.Status */
export const ESCROW_STATUS = { none: 0, deposited: 1, claimed: 2, refunded: 3 } as const

/**
 * Base's clock (unix seconds) as the next block will see it. An embedded chain mines on demand
 * and stamps a new block with the wall clock (or later, after a test moved its time), so its last
 * block's time may be stale: the next block's is at least the later of the two.
 */
export async function baseNow(client: PublicClient, embedded: boolean): Promise<number> {
  const block = await baseRpc(() => client.getBlock({ blockTag: 'latest' }))
  const last = Number(block.timestamp)
  return embedded ? Math.max(last, Math.floor(Date.now() / 1000)) : last
}

const orderStatusFn = fn('function orderStatus(bytes32 orderId) view returns (uint8)')
const timestampFn = fn('function getCurrentBlockTimestamp() view returns (uint256 timestamp)')

/** SourceEscrow.orderStatus(orderId), its selector hashed once (readContract hashed it on every call). */
export async function escrowStatus(client: PublicClient, escrow: Address, orderId: Hex): Promise<number> {
  return Number(await baseRpc(() => viewCall(client, { to: escrow, fn: orderStatusFn, args: [orderId] })))
}

/** A lock's status and Base's clock (`baseNow`'s), read together. */
export type LockRead = { status: number; now: number }

/**
 * `escrowStatus` and `baseNow` for many orders in one eth_call: what is asked within one turn of
 * the event loop goes together through Multicall3, the block's timestamp first, then each status
 * (the worker steps its open orders at once and the status route's clients poll; one request each,
 * and the clock in a block read of its own before the statuses, cost ~25 HTTP round trips per poll
 * with 20 orders in flight, and two in a row on each step's path). All are read at one state, each
 * no earlier than it was asked; a failed call fails every read of it (CHAIN_UNAVAILABLE), none is
 * guessed. The clock is the timestamp the call ran at: a block mined later is stamped no earlier,
 * which is what `readLock` needs (on an embedded chain, also no earlier than the wall clock read
 * before the call was sent, as `baseNow`).
 */
export function batchedLockReads(
  client: PublicClient,
  multicall3: Address,
  embedded: boolean,
): (escrow: Address, orderId: Hex) => Promise<LockRead> {
  let queue: { call: Call; resolve: (r: LockRead) => void; reject: (e: unknown) => void }[] = []
  const flush = async () => {
    const batch = queue
    queue = []
    try {
      const wall = Math.floor(Date.now() / 1000)
      const [at, ...out] = await baseRpc(() =>
        multicall(client, multicall3, [{ to: multicall3, fn: timestampFn }, ...batch.map((b) => b.call)]),
      )
      const now = embedded ? Math.max(Number(at), wall) : Number(at)
      batch.forEach((b, i) => b.resolve({ status: Number(out[i]), now }))
    } catch (e) {
      for (const b of batch) b.reject(e)
    }
  }
  return (escrow, orderId) =>
    new Promise<LockRead>((resolve, reject) => {
      if (queue.length === 0) setImmediate(() => void flush())
      queue.push({ call: { to: escrow, fn: orderStatusFn, args: [orderId] }, resolve, reject })
    })
}

/**
 * One read shared by the callers that ask while it is in flight; a caller after it settled starts
 * the next. For Base's clock: the worker steps its open orders together, and each step read the
 * same latest block (20 orders in flight: ~5 block reads per order). A caller gets a clock read no
 * earlier than one round trip before it asked and before its own next read, which is what
 * `readLock` needs: an older clock only refunds or drops later, never earlier.
 */
export function sharedRead<T>(read: () => Promise<T>): () => Promise<T> {
  let inFlight: Promise<T> | undefined
  return () =>
    (inFlight ??= read().finally(() => {
      inFlight = undefined
    }))
}

export function lockState(status: number): SourceRead['state'] {
  if (status === ESCROW_STATUS.none) return 'missing'
  return status === ESCROW_STATUS.claimed ? 'claimed' : status === ESCROW_STATUS.refunded ? 'refunded' : 'open'
}

/**
 * Base's clock, then the status (two requests): a lock missing from a read made after the deadline
 * never lands. `now$`: how the clock is read (default: a block read of its own).
 */
export function clockThenStatus(client: PublicClient, embedded: boolean, now$ = () => baseNow(client, embedded)) {
  return async (escrow: Address, orderId: Hex): Promise<LockRead> => {
    const now = await now$()
    return { now, status: await escrowStatus(client, escrow, orderId) }
  }
}

/**
 * The lock's state. `fillDeadline`, when known: SourceEscrow refuses to open at or after it, so a
 * lock missing from a read made after it (by Base's clock) never lands. `read$`: how the status
 * and the clock are read (default: `clockThenStatus` on `client`; `batchedLockReads` where
 * Multicall3 is deployed).
 */
export async function readLock(
  client: PublicClient,
  escrow: Address,
  orderId: Hex,
  embedded: boolean,
  fillDeadline: number | null,
  read$: (escrow: Address, orderId: Hex) => Promise<LockRead> = clockThenStatus(client, embedded),
): Promise<SourceRead> {
  const { now, status } = await read$(escrow, orderId)
  if (status === ESCROW_STATUS.none) {
    const lockDead = fillDeadline !== null && now >= fillDeadline
    return {
      state: 'missing',
      now,
      lockDead,
      ...(lockDead
        ? {
            lockDeadReason:
              `the lock never confirmed on Base before its fillDeadline ` +
              `${fillDeadline}, after which the escrow refuses it: build the order again`,
          }
        : {}),
    }
  }
  return { state: lockState(status), now }
}

/** The dest_settler fill record of an order, when there is one. */
export async function readFillRecord(
  reads: SolanaReads,
  program: PublicKey,
  orderId: Hex,
): Promise<FillRecordAccount | undefined> {
  const [info] = await reads.multipleAccounts([fillRecordPda(program, orderId)], 'confirmed')
  if (!info || info.data.length !== FILL_RECORD_LEN || !info.owner.equals(program)) return undefined
  return decodeFillRecord(new Uint8Array(info.data))
}

/**
 * The order as the escrow's `Opened` event carries it (the escrow stores only the status). Only the
 * last `lookbackBlocks` are searched when given: an order still unclaimed was opened within its
 * expiry window.
 */
export async function openedOrder(
  client: PublicClient,
  escrow: Address,
  orderId: Hex,
  lookbackBlocks?: bigint,
): Promise<EvmOrder | undefined> {
  let fromBlock = 0n
  if (lookbackBlocks !== undefined) {
    const latest = await client.getBlockNumber()
    fromBlock = latest > lookbackBlocks ? latest - lookbackBlocks : 0n
  }
  const logs = await client.getContractEvents({
    address: escrow,
    abi: SourceEscrow.abi,
    eventName: 'Opened',
    args: { orderId },
    fromBlock,
    toBlock: 'latest',
  })
  const order = (logs[0]?.args as { order?: EvmOrder } | undefined)?.order
  return order && { ...order, fillDeadline: Number(order.fillDeadline), expires: Number(order.expires) }
}

/**
 * The escrow's Opened events as one reader (an attestor) sees them, scanned forward from where its
 * last lookup stopped, so each lookup reads only the blocks mined since (a chain that mines per
 * transaction grows fast). An order not in the index is looked up directly as a last resort (a
 * reorg may have moved its event behind the scan). `chunk`: the widest block range one query asks.
 */
export function openedIndex(
  client: PublicClient,
  escrow: Address,
  opts: { lookbackBlocks?: bigint; chunk?: bigint } = {},
) {
  const seen = new Map<string, EvmOrder>()
  const chunk = opts.chunk ?? 2_000n
  let next: bigint | undefined
  return async function find(orderId: Hex): Promise<EvmOrder | undefined> {
    const id = orderId.toLowerCase()
    const hit = seen.get(id)
    if (hit) return hit
    const latest = await client.getBlockNumber()
    let from =
      next ?? (opts.lookbackBlocks !== undefined && latest > opts.lookbackBlocks ? latest - opts.lookbackBlocks : 0n)
    while (from <= latest) {
      const to = from + chunk - 1n < latest ? from + chunk - 1n : latest
      const logs = await client.getContractEvents({
        address: escrow,
        abi: SourceEscrow.abi,
        eventName: 'Opened',
        fromBlock: from,
        toBlock: to,
      })
      for (const l of logs) {
        const args = l.args as { orderId?: Hex; order?: EvmOrder }
        if (args.orderId && args.order)
          seen.set(args.orderId.toLowerCase(), {
            ...args.order,
            fillDeadline: Number(args.order.fillDeadline),
            expires: Number(args.order.expires),
          })
      }
      next = to + 1n
      from = to + 1n
    }
    // Bounded: the oldest orders (long settled) go first.
    while (seen.size > 100_000) seen.delete(seen.keys().next().value!)
    return seen.get(id) ?? openedOrder(client, escrow, orderId, opts.lookbackBlocks)
  }
}

/** A bytes32 party holding a Solana key. */
export const partyKey = (party: Hex): PublicKey => new PublicKey(Buffer.from(party.slice(2), 'hex'))
