import { fromBaseUnits } from '../../src/sdk/units.js'

export type UiTokenAmount = { amount: string; decimals: number; uiAmount: number | null; uiAmountString: string }

/** The RPC's token amount object (getTokenAccountBalance, jsonParsed, token balances). */
export function uiTokenAmount(raw: bigint, decimals: number): UiTokenAmount {
  const uiAmountString = fromBaseUnits(raw, decimals)
  return { amount: raw.toString(), decimals, uiAmount: Number(uiAmountString), uiAmountString }
}
