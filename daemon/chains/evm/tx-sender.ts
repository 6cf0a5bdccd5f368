import { BaseError as ViemError, type Address, type Hex, type TransactionReceipt } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { BaseError } from '../../../src/errors/index.js'
import type { EvmChain } from './chain.js'

export type TxRequest = { to: Address; data: Hex; value?: bigint; gas: bigint }

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
}

/** How many recent transactions a sender remembers for dropped/replaced detection. */
const REMEMBERED = 20_000

/**
 * One signing key on one chain. Nonces are assigned locally and broadcasts are serialised, so any
 * number of concurrent callers never collide or leave gaps; a nonce error resynchronises from the
 * node's pending count. Signing happens in-process (no eth_sendTransaction on the node).
 */
export function txSender(chain: EvmChain, privateKey: Hex): TxSender {
  const account = privateKeyToAccount(privateKey)
  const client = chain.client
  let nextNonce: number | undefined
  let tail: Promise<unknown> = Promise.resolve()
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

  const broadcast = async (tx: TxRequest): Promise<Hex> => {
    nextNonce ??= await client.getTransactionCount({ address: account.address, blockTag: 'pending' })
    const nonce = nextNonce
    const { maxFeePerGas, maxPriorityFeePerGas } = await currentFees()
    const signed = await account.signTransaction({
      chainId: chain.chainId, type: 'eip1559', to: tx.to, data: tx.data, value: tx.value ?? 0n, gas: tx.gas,
      nonce, maxFeePerGas: maxFeePerGas * 2n, maxPriorityFeePerGas,
    })
    try {
      const hash = (await client.request({ method: 'eth_sendRawTransaction', params: [signed] })) as Hex
      nextNonce = nonce + 1
      recent.set(hash, { nonce, raw: signed })
      if (recent.size > REMEMBERED) recent.delete(recent.keys().next().value!)
      return hash
    } catch (e) {
      // Someone else used this key, or the node forgot our pending ones: ask the node again next time.
      nextNonce = undefined
      const reason = e instanceof ViemError ? e.shortMessage : String(e)
      throw new BaseError('RELAY_FAILED', `the node refused the transaction: ${reason}`, { cause: e })
    }
  }

  return {
    address: account.address,
    send(tx) {
      const result = tail.then(() => broadcast(tx))
      tail = result.catch(() => undefined)
      return result
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
