import type { ResolvedConfig } from '../src/config/load.js'
import { type ConfigProblem, describeProblems } from '../src/config/problem.js'
import { publicOriginProblems } from '../src/config/public-origin.js'
import { BaseError } from '../src/errors/index.js'

/**
 * Refuses to start a testnet or mainnet daemon that could not serve, listing every problem at once
 * (keys, RPC URLs, token addresses, and each RPC's chain) so one edit fixes them all.
 */
export async function refuseWhatCannotWork(config: Readonly<ResolvedConfig>): Promise<void> {
  const problems = config.profile === 'local' ? publicOriginProblems(config) : await offLocalProblems(config)
  if (problems.length === 0) return
  throw new BaseError(
    'CONFIG_INVALID',
    `the ${config.profile} profile cannot start: ${problems.length} ` +
      `problem${problems.length > 1 ? 's' : ''} in the configuration`,
    {
      details:
        `${describeProblems(problems)}\n` +
        `See docs/hosting.md "Pointing at real networks"; the config file is at \`parx config path\`.`,
    },
  )
}

/**
 * The local profile makes its own keys, chains and contracts: only a public origin it was given can
 * be wrong there (configProblems says the same). The checks of the others load viem and Solana's
 * client, so `parx serve` on the local profile runs this before they have loaded
 * (./startup/early-start.ts) and loads them only off it.
 */
async function offLocalProblems(config: Readonly<ResolvedConfig>): Promise<ConfigProblem[]> {
  const [{ configProblems }, { rpcIdentityProblems }] = await Promise.all([
    import('../src/config/problems.js'),
    import('./chains/rpc-identity.js'),
  ])
  return [...configProblems(config), ...(await rpcIdentityProblems(config))]
}
