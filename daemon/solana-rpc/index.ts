/** The embedded Solana cluster of the local profile: LiteSVM persisted in SQLite, served as a node. */
export { createLocalSvm, LocalSvm, type CreateLocalSvmParameters, type Simulation } from './local-svm.js'
export { startSolanaRpc, type SolanaRpcServer, type StartSolanaRpcParameters } from './rpc-server.js'
export { ensureLocalSolana, SOLVER_INVENTORY, type EnsureLocalSolanaParameters, type LocalSolana } from './setup.js'
export { ensureSettlementPrograms, type SettlementPrograms } from './settlement-programs.js'
export { faucet, type FaucetParameters } from './faucet.js'
export { LOCAL_SOLANA_GENESIS_HASH } from './genesis.js'
export { SolanaTxError } from './tx-error.js'
export type { AccountState } from './spl-token-state.js'
