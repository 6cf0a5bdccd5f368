import { z } from 'zod'
import { uuid } from './fields.js'

/** A channel id: the EIP-712 hash of its ChannelConfig (0x + 64 hex). */
export const channelId = z
  .string()
  .regex(/^0x[0-9a-fA-F]{64}$/, 'must be a channel id (0x and 64 hex digits)')
  .transform((s) => s.toLowerCase())
export const channelParams = z.object({ id: uuid, channelId })

/**
 * An agent's x402 batch-settlement channel to one seller, amounts in token units. `unspent` is
 * what a refund can return: deposited less refunded, withdrawn and charged. `pendingDeposit`: a
 * deposit signed but not yet seen on chain. A seller that does not refund leaves the withdrawal
 * (`parx channels withdraw`): started on the contract, finished after `withdrawDelaySeconds`;
 * `withdrawal` is the one under way (no voucher is signed on the channel meanwhile).
 */
export const channel = z.object({
  id: z.string(),
  network: z.string(),
  token: z.string(),
  receiver: z.string(),
  receiverAuthorizer: z.string(),
  host: z.string(),
  url: z.string(),
  deposited: z.string(),
  charged: z.string(),
  signed: z.string(),
  refunded: z.string(),
  unspent: z.string(),
  withdrawn: z.string(),
  withdrawal: z.object({ amount: z.string(), requestedAt: z.string(), finalizableAt: z.string() }).nullable(),
  pendingDeposit: z.string().nullable(),
  withdrawDelaySeconds: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
})
export type Channel = z.infer<typeof channel>

export const channelList = z.object({ channels: z.array(channel) })
export type ChannelList = z.infer<typeof channelList>

/**
 * POST /api/agents/:id/channels/:channelId/refund: the cooperative refund through the seller, and the channel after it.
 */
export const channelRefund = z.object({
  refunded: z.string(),
  token: z.string(),
  /** The refund's transaction, as the seller's facilitator reports it. */
  transaction: z.string().nullable(),
  channel,
})
export type ChannelRefund = z.infer<typeof channelRefund>

/**
 * POST /api/agents/:id/channels/:channelId/withdraw: `initiated` (the contract's initiateWithdraw of
 * what the chain says is unclaimed, `amount`; finalizable from `finalizableAt`, chain time) or
 * `finalized` (finalizeWithdraw after the delay; `withdrawn` is what came back, the amount asked less
 * what the seller claimed meanwhile), and the channel after it.
 */
export const channelWithdraw = z.object({
  state: z.enum(['initiated', 'finalized']),
  amount: z.string(),
  withdrawn: z.string(),
  token: z.string(),
  finalizableAt: z.string(),
  transaction: z.string(),
  userOperation: z.string().nullable(),
  channel,
})
export type ChannelWithdraw = z.infer<typeof channelWithdraw>
