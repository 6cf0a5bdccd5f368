import { Keypair, PublicKey } from '@solana/web3.js'
import type { NetworkSpec } from '../../../src/networks/registry.js'
import { BaseError } from '../../../src/errors/index.js'
import type { ServiceKeys } from '../../keys/service-keys.js'
import type { SolanaFaucet } from '../../local/faucet.js'
import type { Db } from '../../store/db.js'
import { solanaChain, type SolanaChain } from '../solana/chain.js'
import { createLocalSvm, ensureLocalSolana, faucet, startSolanaRpc, type LocalSvm } from './solana/index.js'

export type LocalSolana = { chain: SolanaChain; svm: LocalSvm; faucet: SolanaFaucet; stop(): Promise<void> }

/**
 * The embedded Solana cluster: LiteSVM persisted in the store, its mints and solver inventory
 * created on the first start, served as JSON-RPC (+ websocket on port+1) like a validator.
 */
export async function startLocalSolana(p: { spec: NetworkSpec; host: string; port?: number; db: Db; keys: ServiceKeys; genesisHash?: string }): Promise<LocalSolana> {
  const svm = createLocalSvm({ db: p.db })
  const mintAuthority = Keypair.fromSecretKey(p.keys.solanaMintAuthority)
  const { mints } = await ensureLocalSolana({
    svm, db: p.db, mintAuthority,
    solver: Keypair.fromSecretKey(p.keys.solanaSolver),
    facilitator: Keypair.fromSecretKey(p.keys.solanaFacilitator),
  })
  const rpc = await startSolanaRpc({ svm, host: p.host, port: p.port ?? 0, genesisHash: p.genesisHash })
  const chain: SolanaChain = {
    ...solanaChain(p.spec, rpc.rpcUrl, rpc.wsUrl, Object.fromEntries(Object.entries(mints).map(([s, m]) => [s, m.toBase58()]))),
    testHooks: { advanceSlots: (slots) => svm.advanceSlots(slots) },
  }
  return {
    chain,
    svm,
    faucet: async ({ to, token, amount }) => {
      let recipient: PublicKey
      try {
        recipient = new PublicKey(to)
      } catch {
        throw new BaseError('BAD_REQUEST', `invalid field 'to': not a Solana public key (base58, 32 bytes)`)
      }
      const sigs = await faucet({ svm, mintAuthority, to: recipient, symbol: token, amount, mints })
      return sigs.at(-1)!
    },
    stop: rpc.stop,
  }
}
