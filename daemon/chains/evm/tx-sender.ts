import {
  type Address,
  formatTransactionReceipt,
  type Hex,
  keccak256,
  RpcError,
  type TransactionReceipt,
  BaseError as ViemError,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { BaseError } from '../../../src/errors/index.js'
import type { EvmChain } from './chain.js'
import { type NonceSource, processNonces } from './nonce-source.js'
import type { Outbox } from './outbox.js'
import { stuckQueueGuard } from './stuck-queue.js'

export type TxRequest = {
  to: Address
  data: Hex
  value?: bigint
  gas: bigint
  /** What the outbox records it as (default `other`), and what it serves. */
  purpose?: string
  refs?: string
}

export type TxSenderOptions = {
  nonceSource?: (address: Address, seed: () => Promise<number>) => NonceSource
  /** Every signed transaction is written here before it is broadcast. */
  outbox?: Outbox
  /** No nonce is taken before this settles: the outbox replay after a restart goes first. */
  after?: Promise<unknown>
  /** Told when the embedded chain's pool had to be unstuck (stuck-queue.ts). */
  warn?: (message: string) => void
}

export type TxSender = {
  address: Address
  /** Signs with the next nonce and broadcasts; resolves once the node accepted the transaction. */
  send(tx: TxRequest): Promise<Hex>
  /** Waits for inclusion; throws RELAY_FAILED when the transaction was dropped or replaced. */
  wait(hash: Hex, timeoutMs?: number): Promise<TransactionReceipt>
  /**
   * Fills `nonce` with a no-op self-transfer (outbox purpose `filler`): a nonce taken from the shared
   * counter by a process that died before recording its transaction (./nonce-gaps.ts).
   */
  fill(nonce: number): Promise<Hex>
  /** Nonce and signed bytes of a recent transaction of this sender: what dropped/replaced detection compares. */
  sent(hash: Hex): { nonce: number; raw: Hex } | undefined
  /** Broadcasts a dropped transaction again, byte for byte; false when the node refuses it (its nonce was taken). */
  resubmit(hash: Hex): Promise<boolean>
  /**
   * send() then wait(), in one node call on the embedded chains (eth_sendRawTransactionSync:
   * anvil mines on arrival and answers with the receipt), which saves latency-bound callers a
   * poll. A refusal throws RELAY_FAILED as send() does; a transaction broadcast but not seen
   * included within `timeoutMs` (mining paused, replaced, slow) throws InclusionUnknown.
   */
  sendAndWait(tx: TxRequest, timeoutMs?: number): Promise<{ hash: Hex; receipt: TransactionReceipt }>
}

/** Broadcast, but not seen included within the wait: it may still be mined, so its nonce stays spent. */
export class InclusionUnknown extends BaseError {
  constructor(
    readonly hash: Hex,
    cause?: unknown,
  ) {
    const why = cause instanceof Error ? ` (${cause.message})` : ''
    super('RELAY_FAILED', `transaction ${hash} was broadcast but its inclusion is not known yet${why}`, { cause })
  }
}

/** Whether the node's answer (viem's summary or the node's own words) says `words`. */
const nodeSays = (e: unknown, words: RegExp) => e instanceof ViemError && words.test(`${e.details} ${e.shortMessage}`)
/**
 * anvil's answer when eth_sendRawTransactionSync took the transaction into its pool but did not
 * mine it within its own wait (mining paused): accepted, not refused.
 */
const isConfirmationTimeout = (e: unknown) => nodeSays(e, /confirmation timeout/i)
/** The node holds these very bytes already (a copy sent again after a stuck pool was released): accepted. */
const isAlreadyKnown = (e: unknown) => nodeSays(e, /already (imported|known)/i)

/** Whether the node is anvil (`parx chains`); one that will not say is not. */
const isAnvil = (client: EvmChain['client']): Promise<boolean> =>
  client.request({ method: 'web3_clientVersion' }).then(
    (v) => /^anvil\//i.test(String(v)),
    (e: unknown) => {
      // A node that refuses the method is not anvil; one that cannot be reached is asked again.
      if (e instanceof RpcError) return false
      throw e
    },
  )

/** Oldest fee data a transaction is signed with (maxFeePerGas is twice it, so a few blocks of base-fee rise fit). */
const FEES_STALE_MS = 5_000

/** How many recent transactions a sender remembers for dropped/replaced detection. */
const REMEMBERED = 20_000

/**
 * One signing key on one chain. Nonces are assigned locally, in call order, so any number of
 * concurrent callers never collide or leave gaps (a refused transaction's nonce is reused or filled);
 * a nonce the node disputes is asked of it again. Signing happens in-process (no
 * eth_sendTransaction on the node).
 */
export function txSender(chain: EvmChain, privateKey: Hex, opts: TxSenderOptions = {}): TxSender {
  const { nonceSource, outbox } = opts
  const account = privateKeyToAccount(privateKey)
  const client = chain.client
  const seed = () => client.getTransactionCount({ address: account.address, blockTag: 'pending' })
  // Port: this process's counter by default; the store's when replicas share the key.
  const nonces = nonceSource ? nonceSource(account.address, seed) : processNonces(seed)
  let tail: Promise<unknown> = (opts.after ?? Promise.resolve()).catch(() => undefined)
  const recent = new Map<Hex, { nonce: number; raw: Hex }>()
  // anvil can leave a transaction queued at this sender's next nonce (stuck-queue.ts): on the embedded
  // chains, and on `parx chains` (anvil as a remote node) where replicas share the key through the
  // store, so the bytes sent again are every replica's, from the outbox. Real nodes: never.
  const onRelease = (e: { nonce: number; resent: number }) =>
    opts.warn?.(
      `${chain.key}: the node left ${account.address}'s transaction ${e.nonce} queued ` +
        `behind a nonce it had already mined; ${e.resent} transaction(s) sent again`,
    )
  const stuck =
    chain.spec.rpc === 'embedded'
      ? stuckQueueGuard({ client, address: account.address, onRelease })
      : outbox
        ? stuckQueueGuard({
            client,
            address: account.address,
            onRelease,
            active: () => isAnvil(client),
            signedFrom: async (nonce) => {
              // The newest row per nonce: a refused transaction's nonce is reused or filled after it.
              const newest = new Map<number, Hex>()
              for (const row of await outbox.sentFrom(chain.key, account.address, nonce))
                newest.set(Number(row.nonce), row.raw as Hex)
              return [...newest.values()]
            },
          })
        : undefined
  type Fees = { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }
  let fees: { at: number; value: Fees } | undefined
  let refreshing: Promise<Fees> | undefined
  const refreshFees = () =>
    (refreshing ??= client
      .estimateFeesPerGas()
      .then((value) => {
        fees = { at: Date.now(), value }
        return value
      })
      .finally(() => (refreshing = undefined)))

  /**
   * Fee data changes per block, not per transaction: a value under a second old is used as is, and
   * one under FEES_STALE_MS is used while a fresh one is fetched beside it, so the serial step
   * never waits on the node for fees (it did once a second, two round trips, under load).
   */
  const currentFees = async (): Promise<Fees> => {
    const age = fees ? Date.now() - fees.at : Infinity
    if (age <= 1_000) return fees!.value
    const fresh = refreshFees()
    if (age > FEES_STALE_MS) return fresh
    fresh.catch(() => undefined)
    return fees!.value
  }

  /**
   * Persisted before the node sees the bytes: a transaction the chain later loses (a crash that
   * rolled an embedded chain back, a reorg) is broadcast again from here (in nonce order, whatever
   * order the rows were written in).
   */
  const record = async (nonce: number, signed: Hex, hash: Hex, purpose: string, refs?: string) => {
    if (!outbox) return
    await outbox.record({
      hash,
      network: chain.key,
      chainId: chain.chainId,
      sender: account.address,
      nonce,
      raw: signed,
      purpose,
      refs,
    })
  }

  /** The serial part of send(): the next nonce and the signature, with no node round trip once the nonce is known. */
  const sign = async (tx: TxRequest) => {
    // Fees first: a nonce is taken only once nothing but the (local) signature can fail.
    const { maxFeePerGas, maxPriorityFeePerGas } = await currentFees()
    const nonce = await nonces.take()
    try {
      const raw = await account.signTransaction({
        chainId: chain.chainId,
        type: 'eip1559',
        to: tx.to,
        data: tx.data,
        value: tx.value ?? 0n,
        gas: tx.gas,
        nonce,
        maxFeePerGas: maxFeePerGas * 2n,
        maxPriorityFeePerGas,
      })
      stuck?.signed(nonce, raw)
      return { nonce, signed: raw, hash: keccak256(raw) }
    } catch (e) {
      repair(nonce)
      throw e
    }
  }

  /**
   * A no-op self-transfer at `nonce`, recorded (as a filler) and broadcast: what fills a nonce nothing else will use.
   */
  const fill = async (nonce: number): Promise<Hex> => {
    const { maxFeePerGas, maxPriorityFeePerGas } = await currentFees()
    const raw = await account.signTransaction({
      chainId: chain.chainId,
      type: 'eip1559',
      to: account.address,
      value: 0n,
      gas: 21_000n,
      nonce,
      maxFeePerGas: maxFeePerGas * 2n,
      maxPriorityFeePerGas,
    })
    const hash = keccak256(raw)
    await record(nonce, raw, hash, 'filler')
    stuck?.signed(nonce, raw)
    await client.request({ method: 'eth_sendRawTransaction', params: [raw] })
    return hash
  }

  /**
   * A refused transaction leaves its nonce unused. When nothing was signed after it, the next one
   * reuses it; otherwise later transactions already wait behind it, and a no-op self-transfer fills it
   * so they land. If the filler is refused too, the nonce is asked of the node again.
   */
  const repair = (nonce: number) => {
    // Decided now (the source's state at the refusal), filled in order behind what is queued.
    stuck?.forget(nonce)
    const reused = nonces.giveBack(nonce)
    const filler = tail
      .then(() => reused)
      .then(async (wasReused) => {
        if (!wasReused) await fill(nonce)
      })
      .catch(() => {
        nonces.reset()
      })
    tail = filler
  }

  /**
   * Nonce and signature in call order (the serial part), then the outbox row. The row is written
   * outside the serial part, so signing the next transaction never waits for this one's write to
   * the store. A row that cannot be written repairs the nonce like a refusal.
   */
  const next = (tx: TxRequest) => {
    const signed = tail.then(() => sign(tx))
    tail = signed.catch(() => undefined)
    return signed.then(async (p) => {
      try {
        await record(p.nonce, p.signed, p.hash, tx.purpose ?? 'other', tx.refs)
      } catch (e) {
        repair(p.nonce)
        throw e
      }
      return p
    })
  }

  /** Hands signed bytes to the node; remembers them for dropped/replaced detection, or repairs the nonce. */
  const broadcast = async (nonce: number, raw: Hex, submit: () => Promise<Hex>): Promise<Hex> => {
    try {
      const hash = await submit().catch((e: unknown) => {
        if (isAlreadyKnown(e)) return keccak256(raw)
        throw e
      })
      recent.set(hash, { nonce, raw })
      if (recent.size > REMEMBERED) recent.delete(recent.keys().next().value!)
      return hash
    } catch (e) {
      repair(nonce)
      const reason = e instanceof ViemError ? e.shortMessage : String(e)
      throw new BaseError('RELAY_FAILED', `the node refused the transaction: ${reason}`, { cause: e })
    }
  }

  return {
    address: account.address,
    /**
     * Nonce and signature are assigned in call order; broadcasts then go out without waiting for the
     * node's answer to the previous one (the node orders them by nonce), so the relay rate is not
     * bound by one round trip per transaction.
     */
    async send(tx) {
      const { nonce, signed } = await next(tx)
      return broadcast(
        nonce,
        signed,
        async () => (await client.request({ method: 'eth_sendRawTransaction', params: [signed] })) as Hex,
      )
    },
    async sendAndWait(tx, timeoutMs = 60_000) {
      if (chain.spec.rpc !== 'embedded') {
        const hash = await this.send(tx)
        try {
          return { hash, receipt: await this.wait(hash, timeoutMs) }
        } catch (e) {
          throw new InclusionUnknown(hash, e)
        }
      }
      const { nonce, signed, hash } = await next(tx)
      let receipt: TransactionReceipt | undefined
      const accepted = broadcast(nonce, signed, async () => {
        try {
          // Not retried: a second copy of the same bytes would be refused as known, and read as a refusal.
          const raw = await client.request({ method: 'eth_sendRawTransactionSync', params: [signed] } as never, {
            retryCount: 0,
          })
          receipt = formatTransactionReceipt(raw as never)
        } catch (e) {
          if (!isConfirmationTimeout(e)) throw e
        }
        return hash
      })
      // The node holds the call until it mines (30 s when mining is paused): wait only as long as asked.
      // A refusal arriving later still gives the nonce back (in broadcast); the caller follows the hash.
      let timer: NodeJS.Timeout | undefined
      const expired = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs)
      })
      try {
        await Promise.race([accepted, expired])
      } finally {
        clearTimeout(timer)
      }
      if (receipt) return { hash, receipt }
      accepted.catch(() => undefined)
      throw new InclusionUnknown(hash)
    },
    fill,
    sent: (hash) => recent.get(hash),
    async resubmit(hash) {
      const tx = recent.get(hash)
      if (!tx) return false
      try {
        await client.request({ method: 'eth_sendRawTransaction', params: [tx.raw] })
        return true
      } catch {
        return false
      }
    },
    async wait(hash, timeoutMs = 60_000) {
      try {
        return await client.waitForTransactionReceipt({
          // A receipt is asked for at least every 250 ms: real networks mine every 2 s or faster.
          hash,
          timeout: timeoutMs,
          pollingInterval: Math.min(client.pollingInterval, 250),
          onReplaced: (r) => {
            throw new BaseError('RELAY_FAILED', `transaction ${hash} was ${r.reason} by ${r.transaction.hash}`)
          },
        })
      } catch (e) {
        if (e instanceof BaseError) throw e
        const reason = e instanceof ViemError ? e.shortMessage : String(e)
        throw new BaseError('RELAY_FAILED', `transaction ${hash} was not included: ${reason}`, { cause: e })
      }
    },
  }
}
