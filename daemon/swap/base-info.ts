import { TOKEN_A, TOKEN_B, USDC } from '../../src/networks/registry.js'
import type { SwapDeps } from './deps.js'
import { solverInventory, ui } from './inventory.js'

/**
 * GET /api/base/info (docs/swap-api.md "Discovery and balances"): everything an integrator needs to sign an order and a
 * permit.
 */
export async function baseInfo(s: SwapDeps) {
  const chain = s.base
  const inv = await solverInventory(s)
  const usdc = chain.tokens[USDC]!
  const out: Record<string, { addr: string; dec: number; inventory: number; routerAllowance: number }> = {}
  const redeemInputs: Record<string, unknown> = {}
  for (const symbol of [TOKEN_A, TOKEN_B]) {
    const t = chain.tokens[symbol]
    if (!t) continue
    const i = inv[symbol]!
    out[symbol] = {
      addr: t.address,
      dec: t.decimals,
      inventory: ui(i.balance, t.decimals),
      routerAllowance: ui(i.routerAllowance, t.decimals),
    }
    redeemInputs[symbol] = {
      addr: t.address,
      dec: t.decimals,
      cap: symbol,
      permitDomain: {
        name: t.permitDomain!.name,
        version: t.permitDomain!.version,
        chainId: chain.chainId,
        verifyingContract: t.address,
      },
    }
  }
  return {
    chainId: chain.chainId,
    solver: s.solver,
    router: chain.contracts.router ?? null,
    usdc: usdc.address,
    usdcDec: usdc.decimals,
    usdcName: usdc.permitDomain!.name,
    usdcVersion: usdc.permitDomain!.version,
    out,
    redeemInputs,
    max: s.limits.maxUsd,
    rate: 1,
  }
}
