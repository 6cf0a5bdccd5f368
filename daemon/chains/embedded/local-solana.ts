import { PublicKey } from '@solana/web3.js'
import type { NetworkSpec } from '../../../src/networks/registry.js'
import { BaseError } from '../../../src/errors/index.js'
import type { ServiceKeys } from '../../keys/service-keys.js'
import { solanaKeypair } from '../../keys/solana-keypair.js'
import type { SolanaFaucet } from '../../local/faucet.js'
import type { DeploymentStore } from './deployments.js'
import { openChainDb } from './solana/chain-db.js'
import { embeddedReads } from './solana/reads.js'
import { checkpointerStopped } from '../../store/checkpointer.js'
import { solanaChain, type SolanaChain } from '../solana/chain.js'
import {
  createLocalSvm, ensureLocalSolana, ensureSettlementPrograms, faucet, startSolanaRpc, type LocalSvm, type SettlementPrograms,
} from './solana/index.js'

export type LocalSolana = {
  chain: SolanaChain; svm: LocalSvm; faucet: SolanaFaucet
  /** origin_settler and dest_settler program ids (loaded at every start, recorded on the first). */
  programs: SettlementPrograms
  stop(): Promise<void>
}

/**
 * The embedded Solana cluster: LiteSVM persisted in its own tables of `chainDbFile` (parx.db),
 * its mints (recorded in the store's deployments) and solver inventory created on the first
 * start, served as JSON-RPC (+ websocket on port+1) like a validator.
 */
export async function startLocalSolana(p: { spec: NetworkSpec; host: string; port?: number; chainDbFile: string; deployments: DeploymentStore; keys: ServiceKeys; genesisHash?: string }): Promise<LocalSolana> {
  const db = openChainDb(p.chainDbFile)
  try {
    const svm = createLocalSvm({ db })
    const mintAuthority = solanaKeypair(p.keys.solanaMintAuthority)
    const { mints } = await ensureLocalSolana({
      svm, deployments: p.deployments, mintAuthority,
      solver: solanaKeypair(p.keys.solanaSolver),
      facilitator: solanaKeypair(p.keys.solanaFacilitator),
    })
    const programs = await ensureSettlementPrograms({
      svm, deployments: p.deployments, admin: mintAuthority, attestors: p.keys.solanaAttestors.map((k) => solanaKeypair(k).publicKey),
    })
    // A client only sees "Internal error": the cause is ours to read, on the daemon's stderr.
    const onInternalError = (e: unknown) => process.stderr.write(`parx: the embedded Solana RPC failed a request (a bug): ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`)
    const rpc = await startSolanaRpc({ svm, host: p.host, port: p.port ?? 0, genesisHash: p.genesisHash, onInternalError })
    const chain: SolanaChain = {
      ...solanaChain(p.spec, rpc.rpcUrl, rpc.wsUrl, {
        ...Object.fromEntries(Object.entries(mints).map(([s, m]) => [s, m.toBase58()])),
        originSettler: programs.originSettler.toBase58(),
        destSettler: programs.destSettler.toBase58(),
      }, { fetch: rpc.fetch, reads: embeddedReads(svm) }),
      testHooks: { advanceSlots: (slots) => svm.advanceSlots(slots) },
    }
    return {
      chain,
      svm,
      programs,
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
      stop: async () => {
        await rpc.stop()
        db.close()
        // With a PostgreSQL store this is parx.db's last connection: wait for its checkpointer too.
        await checkpointerStopped(p.chainDbFile)
      },
    }
  } catch (e) {
    db.close()
    throw e
  }
}
