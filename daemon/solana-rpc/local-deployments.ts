import { PublicKey } from '@solana/web3.js'
import type { DeploymentStore } from '../chains/embedded/deployments.js'
import { networks, type TokenSpec } from '../../src/networks/registry.js'

/** The registry key of the embedded cluster. */
export const LOCAL_SOLANA = 'local-solana'

/** The SPL tokens the local cluster carries, from the registry (symbols and decimals live there). */
export function localSolanaTokens(): TokenSpec[] {
  const network = networks[LOCAL_SOLANA]
  if (!network) throw new Error(`network ${LOCAL_SOLANA} is missing from the registry`)
  return network.tokens
}

/** The mint recorded for `symbol` on the local cluster, if any. */
export async function readMint(deployments: DeploymentStore, symbol: string): Promise<PublicKey | undefined> {
  const address = await deployments.readOne(LOCAL_SOLANA, symbol)
  return address === undefined ? undefined : new PublicKey(address)
}

export async function writeMint(deployments: DeploymentStore, symbol: string, mint: PublicKey): Promise<void> {
  await deployments.writeOne(LOCAL_SOLANA, symbol, mint.toBase58())
}
