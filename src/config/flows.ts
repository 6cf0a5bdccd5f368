import type { FlowName } from './schema.js'

/** Which routes each flow switch governs; /api/capabilities reports this table with the live state. */
export const flowRoutes: Record<FlowName, string[]> = {
  'base.entry': ['POST /api/base/swap (in: USDC)', 'POST /api/base/redeem (in: USDC)'],
  'base.swap': [
    'POST /api/base/swap (partner stable to partner stable)',
    'POST /api/base/redeem (partner stable to partner stable)',
  ],
  'base.redeem': ['POST /api/base/redeem (out: USDC)', 'POST /api/base/swap (out: USDC)', 'GET /api/base/redeem/quote'],
  'sol.swap': ['POST /api/sol/swap'],
  'sol.redeem': ['POST /api/sol/redeem', 'GET /api/sol/redeem/quote'],
  'xchain.sol-origin': ['POST /api/xchain/sol-origin/open/build'],
  'xchain.evm-origin': ['POST /api/xchain/evm-origin/open/build', 'POST /api/xchain/evm-origin/open/submit'],
  facilitator: ['POST {facilitator}/verify', 'POST {facilitator}/settle'],
  faucet: ['POST /api/local/faucet'],
}
