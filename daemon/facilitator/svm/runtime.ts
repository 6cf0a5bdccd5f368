import type { AccountInfo, Connection, Keypair, PublicKey } from '@solana/web3.js'
import { type Landing, landTransaction } from '../../../src/sdk/x402/svm/land.js'
import type { SolanaChain } from '../../chains/solana/chain.js'
import { solanaKeypair } from '../../keys/solana-keypair.js'
import type { FacilitatorDeps } from '../deps.js'

/** What the Solana payment methods need of the network: the fee payer and delegate key, reads, and sending. */
export type SvmRuntime = {
  chain: SolanaChain
  connection: Connection
  signer: Keypair
  blockhash(): Promise<string>
  accounts(keys: PublicKey[]): Promise<(AccountInfo<Buffer> | null)[]>
  /** The program that owns a mint (SPL Token or Token-2022), remembered: mints do not move. */
  tokenProgram(mint: PublicKey): Promise<PublicKey | undefined>
  /** Broadcasts signed bytes and waits for confirmation. */
  land(wire: Uint8Array): Promise<Landing>
}

export function svmRuntime(s: FacilitatorDeps): SvmRuntime {
  const chain = s.solana
  const connection = chain.connection
  const signer = solanaKeypair(s.keys.solanaFacilitator)
  const embedded = chain.spec.rpc === 'embedded'
  const programs = new Map<string, PublicKey>()
  let recent: { at: number; hash: Promise<string> } | undefined

  return {
    chain,
    connection,
    signer,
    blockhash() {
      // A blockhash stays valid for ~60 s; sharing one for a few seconds saves a round trip per payment.
      if (!recent || Date.now() - recent.at > 5_000) {
        const hash = connection.getLatestBlockhash('confirmed').then((b) => b.blockhash)
        recent = { at: Date.now(), hash }
        hash.catch(() => (recent = undefined))
      }
      return recent.hash
    },
    accounts: (keys) => connection.getMultipleAccountsInfo(keys, 'confirmed'),
    async tokenProgram(mint) {
      const known = programs.get(mint.toBase58())
      if (known) return known
      const info = await connection.getAccountInfo(mint, 'confirmed')
      if (!info) return undefined
      programs.set(mint.toBase58(), info.owner)
      return info.owner
    },
    land: (wire) => landTransaction(connection, wire, embedded ? 3 : 400),
  }
}
