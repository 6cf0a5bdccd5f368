import type { Commitment, PublicKey } from '@solana/web3.js'
import type { SolanaReads } from '../chains/solana/reads.js'
import { ataOf, rpc, type Token, tokenAmount } from './accounts.js'

export type Holding = { token: Token; ata: PublicKey; exists: boolean; balance: bigint }
export type Wallet = { owner: PublicKey; lamports: bigint; tokens: Record<string, Holding> }

/**
 * SOL and associated-token-account balances of each owner, in one getMultipleAccountsInfo, so
 * every figure comes from the same slot. Only associated token accounts count: they are what a
 * swap debits and credits, so a balance read here is what a swap can spend.
 */
export async function readWallets(
  reads: SolanaReads,
  owners: PublicKey[],
  tokens: Token[],
  commitment: Commitment = 'confirmed',
): Promise<Wallet[]> {
  const per = 1 + tokens.length
  const keys = owners.flatMap((owner) => [owner, ...tokens.map((t) => ataOf(owner, t))])
  const infos = await rpc(() => reads.multipleAccounts(keys, commitment))
  return owners.map((owner, o) => {
    const base = o * per
    const holdings: Record<string, Holding> = {}
    tokens.forEach((token, t) => {
      const ata = keys[base + 1 + t]!
      const info = infos[base + 1 + t] ?? null
      holdings[token.symbol] = { token, ata, exists: info !== null, balance: tokenAmount(ata, info, token) }
    })
    return { owner, lamports: BigInt(infos[base]?.lamports ?? 0), tokens: holdings }
  })
}
