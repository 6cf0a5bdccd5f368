import type { Logger } from 'pino'
import type { Hex } from 'viem'
import { authCaptureDeployment, authCaptureEscrowAbi } from '../../../src/sdk/x402/evm/auth-capture/contracts.js'
import type { EvmChain } from '../../chains/evm/chain.js'
import { roundEvery } from '../../worker/rounds.js'
import type { AgentHoldRow, AgentHoldStore, HoldAmounts } from './store.js'

/** What the escrow says of one payment: its state and, from its events, where the maximum went. */
export type EscrowView = {
  collected: boolean
  capturable: bigint
  refundable: bigint
  amounts: HoldAmounts
  head: { timestamp: bigint }
  lastTx: Hex | null
}

/** How often the leader reads the agents' open holds on chain, unless config `pay.holdRefreshEverySeconds` says. */
export const HOLD_REFRESH_EVERY_MS = 5_000

const EVENTS = {
  PaymentCaptured: 'captured',
  PaymentVoided: 'voided',
  PaymentRefunded: 'refunded',
  PaymentReclaimed: 'reclaimed',
} as const

/**
 * Reads a hold's payment on its escrow: `paymentState(paymentInfoHash)` (capturable and refundable
 * amounts) and its PaymentCaptured / Voided / Refunded / Reclaimed events since the hold was
 * signed, summed. Throws when the chain does not answer (the next round retries).
 */
export async function readEscrow(chain: EvmChain, h: AgentHoldRow): Promise<EscrowView> {
  const d = authCaptureDeployment(h.escrow)!
  const abi = authCaptureEscrowAbi[d.version]
  const [state, head] = await Promise.all([
    chain.client.readContract({
      address: d.escrow,
      abi,
      functionName: 'paymentState',
      args: [h.id as Hex],
    } as never) as Promise<readonly [boolean, bigint, bigint]>,
    chain.client.getBlock({ blockTag: 'latest' }),
  ])
  const logs = (await chain.client.getLogs({
    address: d.escrow,
    events: (abi as readonly { type: string; name?: string }[]).filter(
      (x) => x.type === 'event' && x.name! in EVENTS,
    ) as never,
    args: { paymentInfoHash: h.id } as never,
    fromBlock: BigInt(h.from_block),
    toBlock: head.number,
  })) as unknown as { eventName: keyof typeof EVENTS; args: { amount: bigint }; transactionHash: Hex }[]
  const amounts: HoldAmounts = { captured: 0n, voided: 0n, refunded: 0n, reclaimed: 0n }
  for (const l of logs) amounts[EVENTS[l.eventName]] += l.args.amount
  return {
    collected: state[0],
    capturable: state[1],
    refundable: state[2],
    amounts,
    head: { timestamp: head.timestamp },
    lastTx: logs.at(-1)?.transactionHash ?? null,
  }
}

/**
 * One round of the leader's refresh of agents' holds: each open hold is read on chain and what
 * came back (voided, refunded, reclaimed) is given back to the agent's limits (./store.ts
 * `observe`). A hold never placed whose authorization expired is closed (its spend is the pending
 * spends' to release). `reclaim` (./reclaim.ts) is called for a hold still capturable after its
 * capture deadline: the seller vanished, and the agent takes its money back.
 */
export async function refreshHolds(p: {
  holds: AgentHoldStore
  evm: Record<string, EvmChain>
  log: Logger
  reclaim?: (h: AgentHoldRow, chain: EvmChain) => Promise<Hex | null>
}): Promise<{ read: number; reclaimed: number }> {
  let read = 0,
    reclaimed = 0
  for (const h of await p.holds.open()) {
    const chain = p.evm[h.network]
    if (!chain) continue
    try {
      const readAt = Date.now()
      const v = await readEscrow(chain, h)
      read++
      const now = v.head.timestamp
      if (!v.collected) {
        const info = JSON.parse(h.payment_info) as { preApprovalExpiry: number }
        if (now > BigInt(info.preApprovalExpiry))
          await p.holds.observe(h.id, v.amounts, { status: 'done', fromChain: true, readAt })
        continue
      }
      let reclaimTx: Hex | null = null
      if (v.capturable > 0n && now >= BigInt(h.capture_deadline) && p.reclaim) {
        reclaimTx = await p.reclaim(h, chain)
        if (reclaimTx) {
          reclaimed++
          v.amounts.reclaimed += v.capturable
          v.capturable = 0n
        }
      }
      const status = v.capturable > 0n ? 'held' : now >= BigInt(h.refund_deadline) ? 'done' : 'settled'
      await p.holds.observe(h.id, v.amounts, {
        status,
        tx: reclaimTx ? null : v.lastTx,
        reclaimTx,
        fromChain: true,
        readAt,
      })
    } catch (err) {
      p.log.warn({ err, hold: h.id }, 'agent auth-capture hold: the chain read failed; the next round retries')
    }
  }
  return { read, reclaimed }
}

/** The leader's duty: refreshHolds every `everyMs`, one round at a time. */
export function agentHoldDuty(
  p: Parameters<typeof refreshHolds>[0] & { everyMs?: number },
): () => Promise<() => Promise<void>> {
  return async () => {
    return roundEvery(
      () => refreshHolds(p),
      p.everyMs ?? HOLD_REFRESH_EVERY_MS,
      p.log,
      'agent auth-capture holds: refresh',
    )
  }
}
