import type { PublicKey } from '@solana/web3.js'
import { TOKEN_A, USDC } from '../../src/networks/registry.js'
import { ui } from '../swap/inventory.js'
import { chainTokens } from './accounts.js'
import type { SolDeps } from './deps.js'
import { resolveNet } from './net.js'
import { readWallets } from './wallets.js'

const LAMPORTS_DECIMALS = 9

/**
 * GET /api/sol/balance: the Solana counterpart of docs/swap-api.md "Discovery and balances" (`sol` in place of `eth`).
 * Token
 * balances are those of the owner's associated token accounts, what a swap can spend; `raw` is
 * exact, `ui` for display.
 */
export async function solBalance(d: SolDeps, owner: PublicKey, net?: string) {
  const network = resolveNet(d.chain.spec, net)
  const tokens = Object.values(await chainTokens(d.chain))
  const [w] = await readWallets(d.chain.reads, [owner], tokens)
  const map: Record<string, { ui: number; raw: string; dec: number; mint: string; account: string }> = {}
  for (const h of Object.values(w!.tokens)) {
    map[h.token.symbol] = {
      ui: ui(h.balance, h.token.decimals),
      raw: h.balance.toString(),
      dec: h.token.decimals,
      mint: h.token.mint.toBase58(),
      account: h.ata.toBase58(),
    }
  }
  const flat = (symbol: string) => {
    const name = symbol.toLowerCase()
    const e = map[symbol]!
    return { [name]: e.ui, [`${name}Raw`]: e.raw, [`${name}Dec`]: e.dec }
  }
  return {
    owner: owner.toBase58(),
    network,
    sol: ui(w!.lamports, LAMPORTS_DECIMALS),
    lamports: w!.lamports.toString(),
    tokens: map,
    ...flat(USDC),
    ...flat(TOKEN_A),
  }
}
