import { uiTokenAmount } from './amounts.js'
import { type AccountState, decodeMint, decodeTokenAccount } from './spl-token-state.js'
import type { TokenBalance } from './tx-store.js'

/**
 * A transaction's pre or post token balances: one entry per token account among its keys,
 * as `meta.preTokenBalances` / `postTokenBalances` show them.
 */
export function tokenBalances(
  keys: string[],
  states: (AccountState | null)[],
  getAccount: (address: string) => AccountState | null,
): TokenBalance[] {
  const decimals = new Map<string, number | undefined>()
  const decimalsOf = (mint: string) => {
    if (!decimals.has(mint)) {
      const i = keys.indexOf(mint)
      decimals.set(mint, decodeMint(i >= 0 ? (states[i] ?? getAccount(mint)) : getAccount(mint))?.decimals)
    }
    return decimals.get(mint)
  }
  const out: TokenBalance[] = []
  states.forEach((state, accountIndex) => {
    const token = decodeTokenAccount(state)
    const d = token && decimalsOf(token.mint)
    if (!token || d === undefined || !state) return
    out.push({
      accountIndex,
      mint: token.mint,
      owner: token.owner,
      programId: state.owner,
      uiTokenAmount: uiTokenAmount(token.amount, d),
    })
  })
  return out
}
