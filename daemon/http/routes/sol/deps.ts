import { Keypair } from '@solana/web3.js'
import type { Services } from '../../../services.js'
import type { SolDeps } from '../../../sol/deps.js'
import { solSwapStore } from '../../../sol/swap-store.js'

const built = new WeakMap<Services, SolDeps>()

/** The Solana routes' dependencies, made once per daemon from its Services. */
export function solDeps(s: Services): SolDeps {
  let d = built.get(s)
  if (!d) {
    d = {
      chain: s.solana, solver: Keypair.fromSecretKey(s.keys.solanaSolver), store: solSwapStore(s.db),
      limits: s.config.limits, flowEnabled: s.flowEnabled,
    }
    built.set(s, d)
  }
  return d
}
