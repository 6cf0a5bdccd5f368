import { chainStatePath } from '../../../src/config/paths.js'
import { UsageError } from '../../../src/errors/index.js'
import { profiles } from '../../../src/networks/registry.js'
import { prepareStateFile } from './state-file.js'

/** The embedded chains kept in a state file of their own (anvil's), in the order they start. */
export const stateFileChains = [profiles.local.base, profiles.local.radius]

export const statePathOf = chainStatePath

/**
 * Before any chain starts (and before the Solana cluster writes to parx.db): every embedded EVM
 * chain's state file is readable, or the start is refused naming it (CHAIN_STATE_UNREADABLE), so a
 * refused start leaves the store and every chain file as they were. `reset` names the chains to
 * start over (`--reset-chain`): only those with a state file; Solana's state is parx.db's tables.
 */
export function prepareEmbeddedStates(p: {
  dataDir: string
  reset: readonly string[]
  warn: (message: string) => void
}): void {
  for (const name of p.reset) {
    if (stateFileChains.includes(name)) continue
    const why =
      name === profiles.local.solana
        ? `${name} keeps its state in parx.db with the store (an unreadable parx.db is refused as STORE_UNREADABLE)`
        : `${name} is not an embedded chain`
    throw new UsageError('BAD_REQUEST', `--reset-chain ${name}: ${why}; it takes ${stateFileChains.join(' or ')}`)
  }
  for (const name of stateFileChains)
    prepareStateFile(statePathOf(p.dataDir, name), { name, reset: p.reset.includes(name), warn: p.warn })
}
