import type { XchainRail, XchainStatusResponse } from '../../src/sdk/xchain/wire.js'
import type { OrderStore, XOrder } from './order-store.js'
import type { Rail } from './rail.js'
import { publicStatus } from './stages.js'

/** Why a built order is still unknown, and what the user does about it. */
const LOCK_PENDING: Record<XchainRail, string> = {
  'sol-origin':
    'the lock transaction has not confirmed on the origin chain ' +
    '(yet): sign and submit txB64 before lastValidBlockHeight',
  'evm-origin':
    'the lock has not confirmed on Base (yet): submit the signed order and permit ' +
    'to gasless.submit, or send calls.approve and calls.open, before fillDeadline',
}

export type StatusDeps = {
  rails: Partial<Record<XchainRail, Rail>>
  orders: OrderStore
  /** Moves the order's next steps now (the leader's worker); absent on a process that does not lead. */
  step?: (orderId: string) => Promise<XOrder | undefined>
}

/**
 * GET /api/xchain/status/:orderId (docs/cross-chain.md "Cross-chain orders": the chain wins): the live lock on the
 * origin chain,
 * reconciled with the worker's record. The chain wins: a lock claimed or refunded on chain is
 * reported so even before the worker's next pass saw it, and a lock not on chain is `unknown`
 * whatever was built.
 */
export async function xchainStatus(
  d: StatusDeps,
  orderId: `0x${string}`,
  rail: XchainRail,
): Promise<XchainStatusResponse> {
  const r = d.rails[rail]
  const record = await d.orders.get(orderId)
  const empty = (reason: string | null, status: XchainStatusResponse['status'] = 'unknown'): XchainStatusResponse => ({
    orderId,
    rail,
    status,
    delivered: '0',
    deliverRef: null,
    claimRef: null,
    refundRef: null,
    recipient: null,
    reason,
    stage: null,
    fillDeadline: null,
    expires: null,
  })
  if (record && record.rail !== rail) {
    return empty(`no ${rail} order has this id; it is a ${record.rail} order: ask with ?rail=${record.rail}`)
  }
  if (!r) return empty(`the ${rail} rail is not served by this service`)
  if (!record) {
    const src = await r.readSourceById(orderId)
    if (src.state === 'missing')
      return empty('no order with this id: a bad id, or its lock transaction has not confirmed yet')
    return empty(
      `a ${rail} lock with this id is on chain (${src.state}) but this service did ` +
        `not build it, so its solver does not fill it; it is refundable after its expiry`,
      'attention',
    )
  }
  let o = record
  const src = { state: await r.readLockState(o) }
  // The chain moved ahead of the record (a claim, a refund, a lock that just landed): let the worker catch up now.
  const behind =
    (src.state === 'open' && o.stage === 'built') ||
    (src.state === 'claimed' && o.stage !== 'claimed') ||
    (src.state === 'refunded' && o.stage !== 'refunded' && o.stage !== 'attention')
  if (behind && d.step) o = (await d.step(orderId)) ?? o
  let status = publicStatus(o.stage)
  if (src.state === 'missing') status = 'unknown'
  else if (src.state === 'claimed') status = 'claimed'
  else if (src.state === 'refunded' && status !== 'attention') status = 'refunded'
  else if (src.state === 'open' && status === 'unknown') status = 'pending'
  const reason =
    status === 'unknown'
      ? o.stage === 'dropped'
        ? o.reason
        : LOCK_PENDING[rail]
      : status === 'attention'
        ? o.reason
        : null
  return {
    orderId,
    rail,
    status,
    delivered: (o.delivered ?? 0n).toString(),
    deliverRef: o.deliverRef,
    claimRef: status === 'claimed' ? o.claimRef : null,
    refundRef: status === 'refunded' ? o.refundRef : null,
    recipient: o.recipient,
    reason,
    stage: o.stage,
    fillDeadline: o.fillDeadline,
    expires: o.expires,
  }
}
