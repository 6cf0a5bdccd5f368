/**
 * The heavy half of the room's public face (index.ts): building the cluster loads LiteSVM and
 * @solana/kit, so the room's index reaches this file only through `loadCluster()`, a dynamic import.
 */

export { type FaucetParameters, faucet } from './faucet.js'
export { type CreateLocalSvmParameters, createLocalSvm, LocalSvm, type Simulation } from './local-svm.js'
export { ensureSettlementPrograms, type SettlementPrograms } from './settlement-programs.js'
export { type EnsureLocalSolanaParameters, ensureLocalSolana, type LocalSolana, SOLVER_INVENTORY } from './setup.js'
