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
export { prepareChainDb, type ChainDb } from './chain-db.js'
export { memoryDeployments, type ClusterDeployments } from './local-deployments.js'
export { recordedCluster, type RecordedCluster } from './recorded-cluster.js'
export { startSolanaRpc, type SolanaRpcServer, type StartSolanaRpcParameters } from './rpc-server.js'
export { startEmbeddedSolana, type ClusterKeys, type EmbeddedSolana, type StartEmbeddedSolanaParameters } from './embedded.js'
export { LOCAL_SOLANA_GENESIS_HASH } from './genesis.js'
export { SolanaTxError, transactionErrorJson, type TransactionErrorJson } from './tx-error.js'
export type { ChainClockOptions } from './chain-clock.js'
export type { LocalSvm, CreateLocalSvmParameters, Simulation } from './local-svm.js'
export type { SettlementPrograms } from './settlement-programs.js'
export type { AccountState } from './spl-token-state.js'

/** The cluster builders (createLocalSvm, ensureLocalSolana, ensureSettlementPrograms, faucet), loaded on first use. */
export const loadCluster = () => import('./cluster.js')
