import { type Address, type Hex, keccak256 } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { batchGas, decodeExecute, encodeExecute, type Group } from '../../../src/sdk/x402/evm/executor.js'
import { ensureExecutor } from '../../../src/sdk/x402/evm/executor-setup.js'
import type { Simulate } from '../../../src/sdk/x402/evm/verify.js'
import type { EvmChain } from '../../chains/evm/chain.js'
import { outboxStore } from '../../chains/evm/outbox.js'
import { DEFAULT_RECEIPT_TIMEOUT_MS, type FacilitatorDeps } from '../deps.js'
import { type GroupOutcome, settlementBatcher } from './batcher.js'

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
        outbox.record({
          hash: keccak256(raw),
          network: chain.key,
          chainId: chain.chainId,
          sender: account,
          nonce,
          raw,
          purpose,
        }),
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
      method: 'eth_call',
      params: [{ from: account, to: account, data: encodeExecute(groups) }, 'latest'],
    })) as Hex
    return decodeExecute(ret)
  }

  const sender = s.sender(chain.key)
  const timeoutMs = s.receiptTimeoutMs ?? DEFAULT_RECEIPT_TIMEOUT_MS
  const batcher = settlementBatcher({
    account,
    onBatch: (size) => s.metrics?.batch(chain.key, size),
    // RELAY_FAILED: refused, nothing was broadcast; InclusionUnknown: broadcast, outcome open.
    send: (groups) =>
      sender.sendAndWait(
        { to: account, data: encodeExecute(groups), gas: batchGas(groups), purpose: 'settlement' },
        timeoutMs,
      ),
  })
  return { chain, account, ready, simulate, submit: (g) => batcher.submit(g) }
}
