import type { Address } from 'viem'
import type { FlowName, ParxConfig } from '../../src/config/schema.js'
import type { EvmChain } from '../chains/evm/chain.js'
import type { FreshCache } from '../chains/evm/fresh-cache.js'
import type { Outbox } from '../chains/evm/outbox.js'
import type { TxSender } from '../chains/evm/tx-sender.js'
import type { SwapRecorder } from '../metrics/operations.js'
import type { InflightOrders } from './inflight.js'

/**
 * What the Base swap surface needs (routes under /api/base), built once by the composition root.
 * The solver's key stays inside `sender`; this surface only knows the solver's address.
 */
export type SwapDeps = {
  /** The EVM network playing the Base role. */
  base: EvmChain
  limits: ParxConfig['limits']
  flowEnabled(flow: FlowName): boolean
  /** The solver's public address (the order's `solver` field). */
  solver: Address
  /** The solver's transaction sender on `base` (port: this process's nonces). */
  sender: TxSender
  /** Short-lived chain reads shared by concurrent requests (inventory, reserves). */
  reads: FreshCache
  /**
   * Orders being relayed (port: this process's in-flight set), so a second submission is refused while the first may
   * land.
   */
  inflight: InflightOrders
  /** Every relayed transaction, written before its broadcast: what confirm knows after a restart. */
  outbox?: Pick<Outbox, 'get'>
  /** Where each relay's outcome is counted (daemon/metrics/operations.ts); none: not counted. */
  metrics?: SwapRecorder
}
