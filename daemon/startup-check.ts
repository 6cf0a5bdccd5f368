import type { ResolvedConfig } from '../src/config/load.js'
import { configProblems, describeProblems } from '../src/config/problems.js'
import { BaseError } from '../src/errors/index.js'
import { rpcIdentityProblems } from './chains/rpc-identity.js'

/**
 * Refuses to start a testnet or mainnet daemon that could not serve, listing every problem at once
 * (keys, RPC URLs, token addresses, and each RPC's chain) so one edit fixes them all.
 */
export async function refuseWhatCannotWork(config: Readonly<ResolvedConfig>): Promise<void> {
  const problems = [...configProblems(config), ...(await rpcIdentityProblems(config))]
  if (problems.length === 0) return
  throw new BaseError('CONFIG_INVALID', `the ${config.profile} profile cannot start: ${problems.length} problem${problems.length > 1 ? 's' : ''} in the configuration`, {
    details: `${describeProblems(problems)}\nSee docs/hosting.md "Pointing at real networks"; the config file is at \`parx config path\`.`,
  })
}
