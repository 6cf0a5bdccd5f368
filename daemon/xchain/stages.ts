import type { XchainStatus } from '../../src/sdk/xchain/wire.js'

/**
 * The solver's steps of one order, persisted in xchain_orders.stage:
 *
 *   built --lock lands--> opened --fill--> delivered --2 of 3 signatures--> attested --claim--> claimed
 *     |                     |
 *     |                     +--expires passes undelivered--> refunded
 *     +--lock's blockhash expires unlanded--> dropped
 *   any step --something a human must look at--> attention (with a reason)
 *
 * `built` exists because the solver co-signs the lock before the user submits it: the order is
 * recorded (and its inventory held) before the answer, so nothing is promised unrecorded.
 */
export const STAGES = [
  'built',
  'opened',
  'delivered',
  'attested',
  'claimed',
  'refunded',
  'dropped',
  'attention',
] as const
export type Stage = (typeof STAGES)[number]

/** Stages the worker still moves. */
export const ACTIVE_STAGES = ['built', 'opened', 'delivered', 'attested'] as const satisfies readonly Stage[]
export const isActive = (s: string): boolean => (ACTIVE_STAGES as readonly string[]).includes(s)

/** Which moves the worker (or an operator) may make; anything else is a bug and is refused. */
const NEXT: Record<Stage, readonly Stage[]> = {
  built: ['opened', 'dropped', 'claimed', 'refunded', 'attention'],
  opened: ['delivered', 'refunded', 'claimed', 'attention'],
  delivered: ['attested', 'claimed', 'attention', 'refunded'],
  attested: ['claimed', 'attention', 'refunded', 'delivered'],
  claimed: [],
  refunded: [],
  dropped: ['opened'],
  // An operator's refund or a late claim seen on chain ends an order under review.
  attention: ['claimed', 'refunded', 'opened', 'delivered', 'attested'],
}

export function canMove(from: string, to: Stage): boolean {
  return (NEXT[from as Stage] ?? []).includes(to)
}

/**
 * The public status of a stage (docs/cross-chain.md "Cross-chain orders"): built and dropped are locks nobody saw
 * confirm.
 */
export function publicStatus(stage: string): XchainStatus {
  switch (stage) {
    case 'opened':
    case 'delivered':
    case 'attested':
      return 'pending'
    case 'claimed':
      return 'claimed'
    case 'refunded':
      return 'refunded'
    case 'attention':
      return 'attention'
    default:
      return 'unknown'
  }
}
