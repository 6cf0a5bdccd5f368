import { type Address, erc20Abi } from 'viem'
import { TOKEN_A, USDC } from '../../src/networks/registry.js'
import type { SwapDeps } from './deps.js'
import { ui } from './inventory.js'

/** GET /api/base/balance (docs/swap-api.md "Discovery and balances"): `raw` is exact; `ui` is for display only. */
export async function baseBalance(s: SwapDeps, owner: Address) {
  const chain = s.base
  const tokens = Object.values(chain.tokens)
  const [eth, ...raws] = await Promise.all([
    chain.client.getBalance({ address: owner }),
    ...tokens.map((t) =>
      chain.client.readContract({ address: t.address, abi: erc20Abi, functionName: 'balanceOf', args: [owner] }),
    ),
  ])
  const map: Record<string, { ui: number; raw: string; dec: number }> = {}
  tokens.forEach(
    (t, i) => (map[t.symbol] = { ui: ui(raws[i]!, t.decimals), raw: raws[i]!.toString(), dec: t.decimals }),
  )
  const flat = (symbol: string) => {
    const name = symbol.toLowerCase()
    const e = map[symbol]!
    return { [name]: e.ui, [`${name}Raw`]: e.raw, [`${name}Dec`]: e.dec }
  }
  return { owner, eth: ui(eth, 18), tokens: map, ...flat(USDC), ...flat(TOKEN_A) }
}
