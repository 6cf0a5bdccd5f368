import { BaseError as ViemError, formatTransactionReceipt, keccak256, type Address, type Hex, type TransactionReceipt } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { BaseError } from '../../../src/errors/index.js'
import type { EvmChain } from './chain.js'
import { processNonces, type NonceSource } from './nonce-source.js'
import type { Outbox } from './outbox.js'

export type TxRequest = {
  to: Address; data: Hex; value?: bigint; gas: bigint
  /** What the outbox records it as (default `other`), and what it serves. */
  purpose?: string; refs?: string
}

export type TxSenderOptions = {
  nonceSource?: (address: Address, seed: () => Promise<number>) => NonceSource
  /** Every signed transaction is written here before it is broadcast. */
  outbox?: Outbox
  /** No nonce is taken before this settles: the outbox replay after a restart goes first. */
  after?: Promise<unknown>
}

export type TxSender = {
  address: Address
  /** Signs with the next nonce and broadcasts; resolves once the node accepted the transaction. */
  send(tx: TxRequest): Promise<Hex>
  /** Waits for inclusion; throws RELAY_FAILED when the transaction was dropped or replaced. */
  wait(hash: Hex, timeoutMs?: number): Promise<TransactionReceipt>
  /** Nonce and signed bytes of a recent transaction of this sender: what dropped/replaced detection compares. */
  sent(hash: Hex): { nonce: number; raw: Hex } | undefined
  /** Broadcasts a dropped transaction again, byte for byte; false when the node refuses it (its nonce was taken). */
  resubmit(hash: Hex): Promise<boolean>
  /**
   * send() then wait(), in one node call on the embedded chains (eth_sendRawTransactionSync:
   * anvil mines on arrival and answers with the receipt), which saves latency-bound callers a poll.
   */
  sendAndWait(tx: TxRequest, timeoutMs?: number): Promise<{ hash: Hex; receipt: TransactionReceipt }>
}

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
  let fees: { at: number; value: Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }> } | undefined

  const currentFees = () => {
    // Fee data is shared for a second: it changes per block, not per transaction.
    if (!fees || Date.now() - fees.at > 1_000) {
      const value = client.estimateFeesPerGas()
      fees = { at: Date.now(), value }
      value.catch(() => (fees = undefined))
    }
    return fees.value
  }

  /**
   * Persisted before the node sees the bytes: a transaction the chain later loses (a crash that
   * rolled an embedded chain back, a reorg) is broadcast again from here. Part of the serial step,
   * so the outbox holds a sender's transactions in nonce order.
   */
  const record = async (nonce: number, signed: Hex, purpose: string, refs?: string) => {
    if (!outbox) return
    await outbox.record({ hash: keccak256(signed), network: chain.key, chainId: chain.chainId, sender: account.address, nonce, raw: signed, purpose, refs })
  }

  /** The serial part of send(): the next nonce and the signature, with no node round trip once the nonce is known. */
  const prepare = async (tx: TxRequest) => {
    // Fees first: a nonce is taken only once nothing but the (local) signature can fail.
    const { maxFeePerGas, maxPriorityFeePerGas } = await currentFees()
    const nonce = await nonces.take()
    try {
      const signed = await account.signTransaction({
        chainId: chain.chainId, type: 'eip1559', to: tx.to, data: tx.data, value: tx.value ?? 0n, gas: tx.gas,
        nonce, maxFeePerGas: maxFeePerGas * 2n, maxPriorityFeePerGas,
      })
      await record(nonce, signed, tx.purpose ?? 'other', tx.refs)
      return { nonce, signed }
    } catch (e) {
      repair(nonce)
      throw e
    }
  }

  /**
   * A refused transaction leaves its nonce unused. When nothing was signed after it, the next one
   * reuses it; otherwise later transactions already wait behind it, and a no-op self-transfer fills it
   * so they land. If the filler is refused too, the nonce is asked of the node again.
   */
  const repair = (nonce: number) => {
    // Decided now (the source's state at the refusal), filled in order behind what is queued.
    const reused = nonces.giveBack(nonce)
    const filler = tail.then(() => reused).then(async (wasReused) => {
      if (wasReused) return
      const { maxFeePerGas, maxPriorityFeePerGas } = await currentFees()
      const signed = await account.signTransaction({
        chainId: chain.chainId, type: 'eip1559', to: account.address, value: 0n, gas: 21_000n,
        nonce, maxFeePerGas: maxFeePerGas * 2n, maxPriorityFeePerGas,
      })
      await record(nonce, signed, 'filler')
      await client.request({ method: 'eth_sendRawTransaction', params: [signed] })
    }).catch(() => {
      nonces.reset()
    })
    tail = filler
  }

  /** Nonce and signature in call order (the serial part). */
  const next = (tx: TxRequest) => {
    const prepared = tail.then(() => prepare(tx))
    tail = prepared.catch(() => undefined)
    return prepared
  }

  /** Hands signed bytes to the node; remembers them for dropped/replaced detection, or repairs the nonce. */
  const broadcast = async (nonce: number, raw: Hex, submit: () => Promise<Hex>): Promise<Hex> => {
    try {
      const hash = await submit()
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
      return broadcast(nonce, signed, async () => (await client.request({ method: 'eth_sendRawTransaction', params: [signed] })) as Hex)
    },
    async sendAndWait(tx, timeoutMs) {
      if (chain.spec.rpc !== 'embedded') {
        const hash = await this.send(tx)
        return { hash, receipt: await this.wait(hash, timeoutMs) }
      }
      const { nonce, signed } = await next(tx)
      let receipt: TransactionReceipt | undefined
      const hash = await broadcast(nonce, signed, async () => {
        receipt = formatTransactionReceipt((await client.request({ method: 'eth_sendRawTransactionSync', params: [signed] } as never)) as never)
        return receipt.transactionHash
      })
      return { hash, receipt: receipt! }
    },
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
          hash, timeout: timeoutMs,
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
