import { formatTransactionReceipt, keccak256, type Address, type Hex, type TransactionReceipt } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { BaseError } from '../../../src/errors/index.js'
import { batchGas, decodeExecute, encodeExecute, type Group } from '../../../src/sdk/x402/evm/executor.js'
import { ensureExecutor } from '../../../src/sdk/x402/evm/executor-setup.js'
import type { Simulate } from '../../../src/sdk/x402/evm/verify.js'
import type { EvmChain } from '../../chains/evm/chain.js'
import { outboxStore } from '../../chains/evm/outbox.js'
import { DEFAULT_RECEIPT_TIMEOUT_MS, type FacilitatorDeps } from '../deps.js'
import { InclusionUnknown, settlementBatcher, type GroupOutcome } from './batcher.js'

/** What the EVM payment methods need of one network: its executor account, simulation and batched settlement. */
export type EvmRuntime = {
  chain: EvmChain
  account: Address
  /** Resolves once the facilitator key is an executor account on this chain. */
  ready(): Promise<void>
  simulate: Simulate
  submit(group: Group): Promise<GroupOutcome>
}

export function evmRuntime(s: FacilitatorDeps, chain: EvmChain): EvmRuntime {
  const account = s.accounts.facilitator
  const outbox = outboxStore(s.store)
  let setup: Promise<void> | undefined
  const ready = () =>
    // Every facilitator path awaits this before the key's shared TxSender sends, so its nonces cannot race.
    // Its transactions go to the outbox first like every other the key signs: replayed in nonce order,
    // a lost delegation lands again before the settlements signed after it (which need it).
    (setup ??= ensureExecutor(chain.client, privateKeyToAccount(s.keys.facilitator), chain.chainId, {
      beforeBroadcast: ({ nonce, raw, purpose }) =>
        outbox.record({ hash: keccak256(raw), network: chain.key, chainId: chain.chainId, sender: account, nonce, raw, purpose }),
    }).then(
      () => undefined,
      (e) => {
        // A failed setup (RPC down at start) is retried by the next payment, not remembered.
        setup = undefined
        throw e
      },
    ))

  const simulate: Simulate = async (groups) => {
    const ret = (await chain.client.request({
      method: 'eth_call', params: [{ from: account, to: account, data: encodeExecute(groups) }, 'latest'],
    })) as Hex
    return decodeExecute(ret)
  }

  const sender = s.sender(chain.key)
  const timeoutMs = s.receiptTimeoutMs ?? DEFAULT_RECEIPT_TIMEOUT_MS
  const batcher = settlementBatcher({
    account,
    send: async (groups) => {
      const tx = { to: account, data: encodeExecute(groups), gas: batchGas(groups), purpose: 'settlement' }
      // A refusal here means nothing was broadcast; after it, an error leaves the outcome open.
      // Not eth_sendRawTransactionSync, even on the embedded chains: with their mining paused it
      // would hold the batch past the receipt timeout and then report a broadcast as a refusal.
      const hash = await sender.send(tx)
      try {
        return { hash, receipt: await receiptOf(chain, hash, timeoutMs) }
      } catch (e) {
        throw new InclusionUnknown(hash, e)
      }
    },
  })
  return { chain, account, ready, simulate, submit: (g) => batcher.submit(g) }
}

/**
 * Polls for a receipt from the first moment, where viem's block-watching wait would first sleep an
 * interval. An embedded chain mines on arrival, so it is asked again every millisecond for the
 * first 200 ms (its receipt is there within one or two), then every 50 ms (mining paused); a
 * real network every 250 ms.
 */
async function receiptOf(chain: EvmChain, hash: Hex, timeoutMs: number): Promise<TransactionReceipt> {
  const started = Date.now()
  const embedded = chain.spec.rpc === 'embedded'
  for (;;) {
    const raw = await chain.client.request({ method: 'eth_getTransactionReceipt', params: [hash] })
    if (raw) return formatTransactionReceipt(raw as never)
    const elapsed = Date.now() - started
    if (elapsed > timeoutMs) throw new BaseError('RELAY_FAILED', `transaction ${hash} was not included within ${timeoutMs / 1000} s`)
    await new Promise((r) => setTimeout(r, embedded ? (elapsed < 200 ? 1 : 50) : 250))
  }
}
