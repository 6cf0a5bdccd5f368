/**
 * Paths of the cross-chain routes. Kept apart from the schemas (wire.ts) so the CLI's operator
 * commands name them without loading zod, viem or web3.js at start.
 */

// The rails live here, below the schemas (wire.ts re-exports them), since the paths are per rail.
export const RAILS = ['sol-origin', 'evm-origin'] as const
export type XchainRail = (typeof RAILS)[number]

export const xchainPaths = {
  solBuild: '/api/xchain/sol-origin/open/build',
  evmBuild: '/api/xchain/evm-origin/open/build',
  /** The gasless evm-origin open: the user's signed order + permit, relayed by the solver as openFor. */
  evmSubmit: '/api/xchain/evm-origin/open/submit',
  status: '/api/xchain/status/:orderId',
  settle: (rail: XchainRail) => `/api/xchain/${rail}/settle`,
  refund: (rail: XchainRail) => `/api/xchain/${rail}/refund`,
  heartbeat: '/api/solver/heartbeat',
  pause: '/api/solver/pause',
  resume: '/api/solver/resume',
  reserve: '/api/reserve',
  release: '/api/reserve/release',
} as const
