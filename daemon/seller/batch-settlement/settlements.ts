import { fromBaseUnits } from '../../../src/sdk/units.js'
import type { ChannelSettlement } from '../../../src/sdk/x402/seller/batch-settlement/claim.js'
import type { EvmChain } from '../../chains/evm/chain.js'
import { type EndpointStore, paidUrl } from '../endpoints.js'
import type { SettlementWebhooks } from '../webhooks/service.js'

/**
 * One settlement webhook per endpoint a batch-settlement sweep paid (its channels are tagged with
 * the endpoint id): the amount is what this sweep's claim took from that endpoint's channels, in
 * token units; the event is keyed by the claim and sweep transactions, so a round reported twice
 * is one event.
 */
export async function recordChannelSettlement(
  p: { endpoints: EndpointStore; webhooks: SettlementWebhooks; evm: Record<string, EvmChain>; platformUrl: string },
  s: ChannelSettlement,
): Promise<void> {
  const byEndpoint = new Map<string, { claimed: bigint; channels: string[] }>()
  for (const c of s.channels) {
    if (!c.tag) continue
    const e = byEndpoint.get(c.tag) ?? { claimed: 0n, channels: [] }
    e.claimed += BigInt(c.claimed)
    e.channels.push(c.channelId)
    byEndpoint.set(c.tag, e)
  }
  for (const [id, e] of byEndpoint) {
    const endpoint = await p.endpoints.served(id)
    const token = endpoint && p.evm[endpoint.network]?.tokens[endpoint.token]
    if (!endpoint || !token) continue
    await p.webhooks.record({
      endpoint,
      paidUrl: paidUrl(p.platformUrl, id),
      protocol: 'x402',
      payment: {
        scheme: 'batch-settlement',
        claim: s.claimTransaction,
        settle: s.settle.transaction,
        channels: e.channels,
      },
      result: {
        success: s.settle.success,
        errorReason: s.settle.errorReason,
        errorMessage: s.settle.errorMessage,
        transaction: s.settle.transaction,
        network: s.network,
      },
      channels: {
        amount: fromBaseUnits(e.claimed, token.decimals),
        count: e.channels.length,
        claimTransaction: s.claimTransaction,
      },
    })
  }
}
