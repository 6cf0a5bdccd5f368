import { PublicKey } from '@solana/web3.js'
import { BaseError } from '../../src/errors/base.js'
import { networks, type TokenSpec } from '../../src/networks/registry.js'

/**
 * Where the cluster records what it created (its mints, its settlement programs), by network and
 * name, so a restart finds them again: the daemon hands in its store's `deployments` table
 * (daemon/chains/embedded/deployments.ts), a cluster started alone a memoryDeployments().
 */
export type ClusterDeployments = {
  read(network: string): Promise<Record<string, string>>
  readOne(network: string, name: string): Promise<string | undefined>
  writeOne(network: string, name: string, address: string): Promise<void>
}

/** Deployments held in this process only: a cluster started alone, whose mints need not outlive it. */
export function memoryDeployments(): ClusterDeployments {
  const byNetwork = new Map<string, Record<string, string>>()
  const of = (network: string) => byNetwork.get(network) ?? byNetwork.set(network, {}).get(network)!
  return {
    read: async (network) => ({ ...of(network) }),
    readOne: async (network, name) => of(network)[name],
    writeOne: async (network, name, address) => void (of(network)[name] = address),
  }
}

/** The registry key of the embedded cluster. */
export const LOCAL_SOLANA = 'local-solana'

/** The SPL tokens the local cluster carries, from the registry (symbols and decimals live there). */
export function localSolanaTokens(): TokenSpec[] {
  const network = networks[LOCAL_SOLANA]
  if (!network) throw new BaseError('INTERNAL', `network ${LOCAL_SOLANA} is missing from the registry`)
  return network.tokens
}

/** The mint recorded for `symbol` on the local cluster, if any. */
export async function readMint(deployments: ClusterDeployments, symbol: string): Promise<PublicKey | undefined> {
  const address = await deployments.readOne(LOCAL_SOLANA, symbol)
  return address === undefined ? undefined : new PublicKey(address)
}

export async function writeMint(deployments: ClusterDeployments, symbol: string, mint: PublicKey): Promise<void> {
  await deployments.writeOne(LOCAL_SOLANA, symbol, mint.toBase58())
}
