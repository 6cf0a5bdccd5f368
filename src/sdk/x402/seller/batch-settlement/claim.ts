import type { Address, Hex } from 'viem'
import { BATCH_SETTLEMENT } from '../../evm/batch-settlement/contracts.js'
import type { SettleResponse } from '../../types.js'
import type { SellerFacilitator } from '../facilitator-client.js'
import type { ChannelRecord, ChannelStore } from './store.js'

/**
 * When the claim-and-settle duty claims a group of channels (one network, token and receiver
 * authorizer: what one `claimWithSignature` may carry). Any one condition suffices:
 * - `minUnclaimed`: the group's charged-but-unclaimed total reaches it (base units; default 1 USDC at 6 decimals);
 * - `maxAgeMs`: its oldest unclaimed charge is older (default 5 min: well inside the 15 min minimum
 *   withdraw delay, so a buyer who starts a timed withdrawal cannot take back what was charged);
 * - a channel of the group has a withdrawal under way (the mirror says so).
 */
export type ClaimPolicy = { minUnclaimed?: bigint; maxAgeMs?: number; maxClaimsPerBatch?: number }

export const DEFAULT_CLAIM_POLICY = { minUnclaimed: 1_000_000n, maxAgeMs: 5 * 60_000, maxClaimsPerBatch: 100 } as const

/** One receiver's sweep after a claim: what moved to it, and the channels (and their tags) it came from. */
export type ChannelSettlement = {
  network: string
  token: Address
  receiver: Address
  claimTransaction: string
  /** The claim's answer and the sweep's (`transaction` empty when nothing was due). */
  settle: SettleResponse
  channels: { channelId: Hex; tag: string | null; claimed: string }[]
}

/**
 * One round's outcome: the claims sent, the sweeps, and what failed (`failedChannels`: channels
 * whose claim was refused or threw, left for the next round; `errors`: one line per failed step).
 */
export type ClaimReport = {
  claims: { network: string; token: string; channels: number; transaction: string }[]
  settlements: ChannelSettlement[]
  errors: string[]
  failedChannels: number
}

/** What the duty asks of a facilitator: `/settle` of claim and settle payloads, over HTTP or in process. */
export type ClaimFacilitator = Pick<SellerFacilitator, 'settle'>

const requirementsFor = (network: string, token: string, payTo: string) => ({
  scheme: BATCH_SETTLEMENT,
  network,
  asset: token,
  amount: '0',
  payTo,
  maxTimeoutSeconds: 0,
  extra: {},
})

/**
 * The seller's batched settlement: claims every due group's newest vouchers in one `/settle` of
 * type `claim` per group (up to maxClaimsPerBatch channels a transaction), records the claimed
 * totals, then sweeps each receiver's claimed funds with one `settle`. `force`: every claimable
 * channel now, whatever the policy (a stop with flush, a test).
 *
 * @example
 * const report = await claimAndSettle({ store, facilitator: facilitatorClient({ url }) })
 */
export async function claimAndSettle(o: {
  store: ChannelStore
  facilitator: ClaimFacilitator
  policy?: ClaimPolicy
  force?: boolean
  now?: number
}): Promise<ClaimReport> {
  const policy = { ...DEFAULT_CLAIM_POLICY, ...o.policy }
  const now = o.now ?? Date.now()
  const report: ClaimReport = { claims: [], settlements: [], errors: [], failedChannels: 0 }
  const groups = new Map<string, ChannelRecord[]>()
  for (const c of await o.store.claimable()) {
    const k = [c.network, c.config.token, c.config.receiverAuthorizer].join('|').toLowerCase()
    groups.set(k, [...(groups.get(k) ?? []), c])
  }
  const receivers = new Map<string, ChannelSettlement>()
  for (const rows of groups.values()) {
    const unclaimed = rows.reduce((s, c) => s + BigInt(c.chargedCumulativeAmount) - BigInt(c.totalClaimed), 0n)
    const oldest = Math.min(...rows.map((c) => c.lastRequestAt))
    const due =
      o.force ||
      unclaimed >= policy.minUnclaimed ||
      now - oldest >= policy.maxAgeMs ||
      rows.some((c) => c.withdrawRequestedAt > 0)
    if (!due) continue
    const { network, config } = rows[0]!
    for (let i = 0; i < rows.length; i += policy.maxClaimsPerBatch) {
      const batch = rows.slice(i, i + policy.maxClaimsPerBatch)
      const claims = batch.map((c) => ({
        voucher: { channel: c.config, maxClaimableAmount: c.signedMaxClaimable },
        signature: c.signature,
        totalClaimed: c.chargedCumulativeAmount,
      }))
      const r = requirementsFor(network, config.token, config.receiver)
      const out = await o.facilitator
        .settle({
          x402Version: 2,
          paymentPayload: { x402Version: 2, accepted: r, payload: { type: 'claim', claims } },
          paymentRequirements: r,
        })
        .catch(
          (e: Error): SettleResponse => ({
            success: false,
            errorReason: 'unexpected_settle_error',
            errorMessage: e.message,
            transaction: '',
            network,
          }),
        )
      if (!out.success) {
        report.errors.push(
          `claim of ${batch.length} channel(s) on ${network}: ` +
            `${out.errorReason ?? ''} ${out.errorMessage ?? ''}`.trim(),
        )
        report.failedChannels += batch.length
        continue
      }
      report.claims.push({ network, token: config.token, channels: batch.length, transaction: out.transaction })
      for (const c of batch) {
        await o.store.markClaimed(c.channelId, c.chargedCumulativeAmount)
        const k = [network, c.config.token, c.config.receiver].join('|').toLowerCase()
        const s = receivers.get(k) ?? {
          network,
          token: c.config.token,
          receiver: c.config.receiver,
          claimTransaction: out.transaction,
          settle: out,
          channels: [],
        }
        s.channels.push({
          channelId: c.channelId,
          tag: c.tag,
          claimed: (BigInt(c.chargedCumulativeAmount) - BigInt(c.totalClaimed)).toString(),
        })
        receivers.set(k, s)
      }
    }
  }
  for (const s of receivers.values()) {
    const r = requirementsFor(s.network, s.token, s.receiver)
    const out = await o.facilitator
      .settle({
        x402Version: 2,
        paymentPayload: {
          x402Version: 2,
          accepted: r,
          payload: { type: 'settle', receiver: s.receiver, token: s.token },
        },
        paymentRequirements: r,
      })
      .catch(
        (e: Error): SettleResponse => ({
          success: false,
          errorReason: 'unexpected_settle_error',
          errorMessage: e.message,
          transaction: '',
          network: s.network,
        }),
      )
    // Claimed but not swept stays owed to the receiver on chain: the next round's settle sweeps it.
    if (!out.success)
      report.errors.push(
        `settle to ${s.receiver} on ${s.network}: ${out.errorReason ?? ''} ${out.errorMessage ?? ''}`.trim(),
      )
    report.settlements.push({ ...s, settle: out })
  }
  return report
}
