import { PublicKey } from '@solana/web3.js'
import type { Db } from '../../../store/db.js'
import { networks, type TokenSpec } from '../../../../src/networks/registry.js'

/** The registry key of the embedded cluster. */
export const LOCAL_SOLANA = 'local-solana'

/** The SPL tokens the local cluster carries, from the registry (symbols and decimals live there). */
export function localSolanaTokens(): TokenSpec[] {
  const network = networks[LOCAL_SOLANA]
  if (!network) throw new Error(`network ${LOCAL_SOLANA} is missing from the registry`)
  return network.tokens
}

/** The mint recorded for `symbol` on the local cluster, if any. */
export function readMint(db: Db, symbol: string): PublicKey | undefined {
  const address = db.prepare('SELECT address FROM deployments WHERE network = ? AND name = ?').pluck()
    .get(LOCAL_SOLANA, symbol) as string | undefined
  return address === undefined ? undefined : new PublicKey(address)
}

export function writeMint(db: Db, symbol: string, mint: PublicKey): void {
  db.prepare(`INSERT INTO deployments (network, name, address) VALUES (?, ?, ?)
    ON CONFLICT (network, name) DO UPDATE SET address = excluded.address`).run(LOCAL_SOLANA, symbol, mint.toBase58())
}
