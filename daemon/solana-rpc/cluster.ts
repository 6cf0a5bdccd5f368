/**
 * The heavy half of the room's public face (index.ts): building the cluster loads LiteSVM and
 * @solana/kit, so the room's index reaches this file only through `loadCluster()`, a dynamic import.
 */
export { createLocalSvm, LocalSvm, type CreateLocalSvmParameters, type Simulation } from './local-svm.js'
export { ensureLocalSolana, SOLVER_INVENTORY, type EnsureLocalSolanaParameters, type LocalSolana } from './setup.js'
export { ensureSettlementPrograms, type SettlementPrograms } from './settlement-programs.js'
export { faucet, type FaucetParameters } from './faucet.js'
