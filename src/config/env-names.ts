/** Names of the per-network PARX_* variables (no dependencies: the CLI loads this for every command). */
const envSuffix = (network: string) => network.toUpperCase().replaceAll('-', '_')

/** The environment variable carrying a network's RPC URL (PARX_RPC_BASE_SEPOLIA). */
export const rpcEnv = (network: string) => `PARX_RPC_${envSuffix(network)}`
/** The environment variable carrying a network's deployed addresses as JSON (PARX_CONTRACTS_BASE_SEPOLIA). */
export const contractsEnv = (network: string) => `PARX_CONTRACTS_${envSuffix(network)}`
