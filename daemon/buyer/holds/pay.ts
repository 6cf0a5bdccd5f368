import type { Hex } from 'viem'
import type { Receipt } from '../../../src/sdk/platform/pay.js'
import { fromBaseUnits } from '../../../src/sdk/units.js'
import type { EvmChain, EvmToken } from '../../chains/evm/chain.js'
import type { AgentRow } from '../../platform/store.js'
import type { HoldOutcome, HoldTerms } from '../pay/auth-capture.js'
import type { AgentHoldStore } from './store.js'

/** Records a signed hold (before the seller sees it), with the head block its escrow events are read from. */
export async function recordHold(
  holds: AgentHoldStore,
  chain: EvmChain,
  p: { agent: AgentRow; spendId: string; token: EvmToken; hold: HoldTerms },
): Promise<void> {
  // A chain that does not answer still gets the hold recorded: its events are then read from a day's worth of blocks
  // back.
  const head = await chain.client.getBlockNumber({ cacheTime: 0 }).catch(() => undefined)
  await holds.insert({
    id: p.hold.id,
    spendId: p.spendId,
    agentId: p.agent.id,
    network: p.agent.network,
    token: p.token.symbol,
    decimals: p.token.decimals,
    escrow: p.hold.escrow,
    info: p.hold.info,
    fromBlock: head === undefined ? 0n : head > 10n ? head - 10n : 0n,
  })
}

/**
 * The seller's answer for a hold, applied: a capture (the rest voided with it, or still held
 * for a later capture), a void (everything back), or the authorize alone (held). Returns the
 * receipt's `hold`, in token units.
 */
export async function holdReceipt(
  holds: AgentHoldStore,
  t: HoldTerms,
  token: EvmToken,
  o: HoldOutcome | undefined,
  tx: Hex,
): Promise<NonNullable<Receipt['hold']>> {
  const max = t.info.maxAmount
  const captured = o?.captured ?? 0n,
    voided = o?.voided ?? 0n
  const closed = o !== undefined && o.operation !== 'authorize' && captured + voided === max
  await holds.observe(
    t.id,
    { captured, voided, refunded: 0n, reclaimed: 0n },
    { status: closed ? 'settled' : 'held', tx },
  )
  const units = (v: bigint) => fromBaseUnits(v, token.decimals)
  const iso = (s: number) => new Date(s * 1000).toISOString()
  return {
    id: t.id,
    held: units(max),
    captured: units(captured),
    voided: units(voided),
    captureDeadline: iso(t.info.authorizationExpiry),
    refundDeadline: iso(t.info.refundExpiry),
  }
}
