import { PublicKey } from '@solana/web3.js'
import { configPda, decodeConfig } from '../../contracts/solana/client.js'
import { AccountStore } from './account-store.js'
import type { ChainDb } from './chain-db.js'
import { type ClusterDeployments, LOCAL_SOLANA, localSolanaTokens } from './local-deployments.js'
import { type SettlementPrograms, sameAttestors } from './settlement-programs.js'
import { decodeMint } from './spl-token-state.js'

export type RecordedCluster = { mints: Record<string, PublicKey>; programs: SettlementPrograms }

/**
 * What a restart can announce before LiteSVM is built: the mints and settlement programs recorded
 * in `deployments`, when the cluster's saved accounts hold them as the start itself would leave
 * them (ensureLocalSolana, ensureSettlementPrograms): every mint with its decimals and this mint
 * authority, origin_settler's config naming these attestors. Undefined when anything differs
 * (a first start, a lost chain, new keys): the cluster is then built before the addresses are
 * known, as a first start does.
 */
export async function recordedCluster(p: {
  db: ChainDb
  deployments: ClusterDeployments
  mintAuthority: PublicKey
  attestors: PublicKey[]
}): Promise<RecordedCluster | undefined> {
  const accounts = new AccountStore(p.db)
  // One read of what is recorded: the mints by symbol and the programs by name.
  const recorded = await p.deployments.read(LOCAL_SOLANA)
  const mints: Record<string, PublicKey> = {}
  for (const token of localSolanaTokens()) {
    const mint = recorded[token.symbol]
    const state = mint && decodeMint(accounts.get(mint))
    if (!mint || !state || state.decimals !== token.decimals || state.mintAuthority !== p.mintAuthority.toBase58())
      return undefined
    mints[token.symbol] = new PublicKey(mint)
  }
  if (!recorded.origin_settler || !recorded.dest_settler) return undefined
  const [originSettler, destSettler] = [new PublicKey(recorded.origin_settler), new PublicKey(recorded.dest_settler)]
  const config = accounts.get(configPda(originSettler).toBase58())
  if (!config || !namesAttestors(config.data, p.attestors)) return undefined
  return { mints, programs: { originSettler, destSettler } }
}

function namesAttestors(data: Uint8Array, attestors: PublicKey[]): boolean {
  try {
    return sameAttestors(decodeConfig(data).attestors, attestors)
  } catch {
    return false // not a config account: the start makes one
  }
}
