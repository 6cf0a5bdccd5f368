import { Keypair, type PublicKey } from '@solana/web3.js'
import Sqlite from 'better-sqlite3'
import type { ChainClockOptions } from './chain-clock.js'
import { type ChainDb, prepareChainDb } from './chain-db.js'
import { type ClusterDeployments, memoryDeployments } from './local-deployments.js'
import type { LocalSvm } from './local-svm.js'
import { type SolanaRpcServer, type StartSolanaRpcParameters, startSolanaRpc } from './rpc-server.js'

/**
 * The keys a cluster's setup funds: SOL for each, the registry's SPL mints under `mintAuthority`, the solver's
 * inventory.
 */
export type ClusterKeys = { mintAuthority: Keypair; solver: Keypair; facilitator: Keypair }

export type StartEmbeddedSolanaParameters = ChainClockOptions &
  Pick<StartSolanaRpcParameters, 'host' | 'port' | 'genesisHash' | 'onInternalError'> & {
    /**
     * The cluster's tables (prepareChainDb is run on it); stays open at stop. Default: a database in memory, closed at
     * stop.
     */
    db?: ChainDb
    /** Where the mints are recorded, for a restart on the same `db` to find them. Default: in memory. */
    deployments?: ClusterDeployments
    /** Default: new keys. */
    keys?: ClusterKeys
  }

export type EmbeddedSolana = {
  svm: LocalSvm
  rpc: SolanaRpcServer
  keys: ClusterKeys
  /** The registry's local-solana SPL mints by symbol. */
  mints: Record<string, PublicKey>
  /** Stops the RPC server; closes the database only when it made it. */
  stop(): Promise<void>
}

/**
 * A whole Solana cluster on its own, with nothing of the daemon: LiteSVM over `db`, set up as a
 * daemon's first start sets it up (funded keys, the registry's mints, the solver's inventory) and
 * served as JSON-RPC on `host:port` (websocket on port + 1; 0 picks free ports) for an unmodified
 * @solana/web3.js or @solana/kit client.
 *
 * @example
 * const sol = await startEmbeddedSolana({ port: 0 })
 * const connection = new Connection(sol.rpc.rpcUrl, 'confirmed')
 * await connection.requestAirdrop(wallet, LAMPORTS_PER_SOL)
 * await sol.stop()
 */
export async function startEmbeddedSolana(p: StartEmbeddedSolanaParameters = {}): Promise<EmbeddedSolana> {
  const { createLocalSvm, ensureLocalSolana } = await import('./cluster.js')
  const { db: given, deployments, keys: givenKeys, host, port, genesisHash, onInternalError, ...clock } = p
  const owned = given === undefined
  const db = prepareChainDb(given ?? new Sqlite(':memory:'))
  try {
    const svm = createLocalSvm({ ...clock, db })
    const keys = givenKeys ?? {
      mintAuthority: Keypair.generate(),
      solver: Keypair.generate(),
      facilitator: Keypair.generate(),
    }
    const { mints } = await ensureLocalSolana({ svm, deployments: deployments ?? memoryDeployments(), ...keys })
    const rpc = await startSolanaRpc({ svm, host, port: port ?? 0, genesisHash, onInternalError })
    return {
      svm,
      rpc,
      keys,
      mints,
      stop: async () => {
        await rpc.stop()
        if (owned) db.close()
      },
    }
  } catch (e) {
    if (owned) db.close()
    throw e
  }
}
