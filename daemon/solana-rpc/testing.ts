import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Connection, Keypair, type PublicKey } from '@solana/web3.js'
import { deploymentStore } from '../chains/embedded/deployments.js'
import { openChainDb } from '../chains/embedded/solana-chain-db.js'
import { openStore, type Store } from '../store/store.js'
import type { ChainClockOptions } from './chain-clock.js'
import type { ChainDb } from './chain-db.js'
import { type ClusterKeys, startEmbeddedSolana } from './embedded.js'
import type { LocalSvm } from './local-svm.js'
import type { SolanaRpcServer } from './rpc-server.js'

/** The keys a test cluster funds (a restart passes the same ones). */
export type ServiceKeys = ClusterKeys

export type TestCluster = {
  file: string
  db: ChainDb
  /** The service store on the same file, as the daemon's SQLite default has it (mints are recorded there). */
  store: Store
  svm: LocalSvm
  rpc: SolanaRpcServer
  connection: Connection
  keys: ServiceKeys
  mints: Record<string, PublicKey>
  /** Stops the RPC and closes the store; the SQLite file stays for a restart. */
  stop: () => Promise<void>
}

/** A temp directory removed by the returned function. */
export function tempDir(): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'parx-solana-'))
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) }
}

/** A clock that stands still: slots move only by `svm.advanceSlots`, so tests never race time. */
export const frozenClock = (): ChainClockOptions => {
  const now = Date.now()
  return { now: () => now }
}

/**
 * For tests: the embedded cluster over `file`, set up as the daemon does, served on free ports,
 * with an unmodified web3.js Connection on it. Same `file` and `keys` again = a restart.
 */
export async function startTestCluster(
  file: string,
  opts: { keys?: ServiceKeys; clock?: ChainClockOptions } = {},
): Promise<TestCluster> {
  const keys = opts.keys ?? {
    mintAuthority: Keypair.generate(),
    solver: Keypair.generate(),
    facilitator: Keypair.generate(),
  }
  const db = openChainDb(file)
  const store = await openStore({ file })
  const { svm, rpc, mints, stop } = await startEmbeddedSolana({
    ...opts.clock,
    db,
    deployments: deploymentStore(store),
    keys,
    port: 0,
  })
  const connection = new Connection(rpc.rpcUrl, 'confirmed')
  return {
    file,
    db,
    store,
    svm,
    rpc,
    connection,
    keys,
    mints,
    stop: async () => {
      await stop()
      db.close()
      await store.close()
    },
  }
}
