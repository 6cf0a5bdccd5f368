/**
 * The embedded Solana cluster, a room of its own: LiteSVM whose accounts and history live in SQLite
 * tables its host hands in (ChainDb), served as a Solana JSON-RPC node (HTTP, and websocket on the
 * next port) that unmodified @solana/web3.js and @solana/kit clients use. It knows nothing of the
 * daemon: the daemon (daemon/chains/embedded/local-solana.ts) gives it the database, where to
 * record its mints (ClusterDeployments) and the keys, and reads its state in process.
 *
 * This face loads no LiteSVM: a restarted daemon serves the recorded cluster (recordedCluster,
 * startSolanaRpc) before building it, and LiteSVM with @solana/kit comes in by `loadCluster()`.
 */

export type { ChainClockOptions } from './chain-clock.js'
export { type ChainDb, prepareChainDb } from './chain-db.js'
export {
  type ClusterKeys,
  type EmbeddedSolana,
  type StartEmbeddedSolanaParameters,
  startEmbeddedSolana,
} from './embedded.js'
export { LOCAL_SOLANA_GENESIS_HASH } from './genesis.js'
export { type ClusterDeployments, memoryDeployments } from './local-deployments.js'
export type { CreateLocalSvmParameters, LocalSvm, Simulation } from './local-svm.js'
export { type RecordedCluster, recordedCluster } from './recorded-cluster.js'
export { type SolanaRpcServer, type StartSolanaRpcParameters, startSolanaRpc } from './rpc-server.js'
export type { SettlementPrograms } from './settlement-programs.js'
export type { AccountState } from './spl-token-state.js'
export { SolanaTxError, type TransactionErrorJson, transactionErrorJson } from './tx-error.js'

/** The cluster builders (createLocalSvm, ensureLocalSolana, ensureSettlementPrograms, faucet), loaded on first use. */
export const loadCluster = () => import('./cluster.js')
