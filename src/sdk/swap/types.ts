import type { Address, Hex } from 'viem'

/** GET /api/base/info (docs/swap-api.md "Discovery and balances"). */
export type BaseInfo = {
  chainId: number
  solver: Address
  router: Address
  usdc: Address
  usdcDec: number
  usdcName: string
  usdcVersion: string
  out: Record<string, { addr: Address; dec: number; inventory: number; routerAllowance: number }>
  redeemInputs: Record<
    string,
    {
      addr: Address
      dec: number
      cap: string
      permitDomain: { name: string; version: string; chainId: number; verifyingContract: Address }
    }
  >
  max: number | null
  rate: number
}

/** GET /api/base/nonces: what an order and its permit must carry right now. */
export type Nonces = {
  owner: Address
  /** The router's `nonces(owner)`: the next order's nonce. */
  router: string
  /** Each token's EIP-2612 `nonces(owner)`, by symbol: the permit's nonce. */
  permit: Record<string, string>
  /** Timestamp of the latest block, Unix seconds: deadlines are judged against chain time. */
  chainTime: number
}

/** GET /api/base/redeem/quote (docs/swap-api.md "Redemptions"). */
export type RedeemQuote = {
  in: string
  out: string
  chain: string
  inAmount: number
  usdcOut: number
  usdcOutBase: string
  slippageBps: number
  minOutBase: string
  slippageBpsMax: number
  usdcDec: number
  usdc: Address
  deliverFrom: 'inventory' | 'pool'
  maxUsd: number
  hardMaxUsd: number
  solverUsdcInventory: number
  rate: number
  inputToken: Address
}

/** POST /api/base/swap and /api/base/redeem: the relayed transaction, not yet included. */
export type SwapAccepted = {
  hash: Hex
  status: 'submitted'
  /** par: partner stable to partner stable; entry: USDC in; redeem: USDC out. */
  kind: 'par' | 'entry' | 'redeem'
  orderHash: Hex
  user: Address
  nonce: string
  in: string
  out: string
  inputAmount: string
  /** The signed floor; inventory fills pay exactly this, pool fills at least this. */
  minOutputAmount: string
  deliverFrom: 'inventory' | 'pool'
  /** Path to poll for inclusion. */
  confirm: string
}

/** The `Swapped` event of an included swap, amounts in base units. */
export type SwapEvent = {
  orderHash: Hex
  user: Address
  inputToken: Address
  inputAmount: string
  outputToken: Address
  outputAmount: string
  nonce: string
}

/** GET /api/base/confirm?hash= */
export type ConfirmResult =
  | { hash: Hex; status: 'pending' }
  | { hash: Hex; status: 'included'; success: true; blockNumber: number; gasUsed: string; swap?: SwapEvent }
  | { hash: Hex; status: 'failed'; success: false; blockNumber: number; reason: string }
  /** The node lost it; when `resubmitted`, the relayer sent the same signed transaction again: keep polling. */
  | { hash: Hex; status: 'dropped'; resubmitted: boolean; reason: string }
  /** Another transaction took its nonce: this one will never be included. */
  | { hash: Hex; status: 'replaced'; reason: string }
  | { hash: Hex; status: 'unknown'; reason: string }
