import { createXchain, type XchainParts } from '../xchain/compose.js'
import type { Core } from './core.js'

/** Cross-chain orders: the rails, the solver worker, the attestors. Only the worker leader moves orders. */
export function composeXchain({
  store,
  chains,
  base,
  keys,
  accounts,
  sender,
  config,
  log,
  leading,
  life,
}: Core): XchainParts {
  const xchain = createXchain({
    store,
    evm: chains.evm,
    base,
    solana: chains.solana,
    keys,
    evmSolver: accounts.solver,
    baseSender: sender(base.key, 'solver'),
    limits: config.limits,
    timing: config.xchain,
    log,
    leading,
    storeUrl: config.store.url,
  })
  life.onStop(() => xchain.stop())
  return xchain
}
