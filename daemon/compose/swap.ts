import type { Surfaces } from '../services.js'
import { solDeps } from '../sol/deps.js'
import { swapInflight } from '../swap/relay-swap.js'
import type { Core } from './core.js'

/** Same-chain swaps on Base, relayed with the solver key. */
export function composeSwap({
  base,
  config,
  flowEnabled,
  accounts,
  sender,
  reads,
  store,
  outbox,
  metrics,
}: Core): Surfaces['swap'] {
  return {
    base,
    limits: config.limits,
    flowEnabled,
    solver: accounts.solver,
    sender: sender(base.key, 'solver'),
    reads,
    inflight: swapInflight({ base }, config.store.url ? store : undefined),
    outbox,
    metrics: metrics.swap,
  }
}

/** Solana swaps, co-signed by the Solana solver key. */
export function composeSol({ chains, keys, store, config, flowEnabled }: Core): Surfaces['sol'] {
  return solDeps({ chain: chains.solana, solverKey: keys.solanaSolver, store, limits: config.limits, flowEnabled })
}
