import type { Logger } from 'pino'
import type { Address } from 'viem'
import type { RefundAnswer } from '../../src/sdk/platform/refunds.js'
import type { AnswerStore } from '../../src/sdk/x402/seller/answers/store.js'
import type { HoldStore } from '../../src/sdk/x402/seller/auth-capture/store.js'
import type { ChannelStore } from '../../src/sdk/x402/seller/batch-settlement/store.js'
import { facilitatorClient, type SellerFacilitator } from '../../src/sdk/x402/seller/facilitator-client.js'
import type { EvmChain } from '../chains/evm/chain.js'
import type { Egress } from '../egress/guard.js'
import type { PlatformStore } from '../platform/store.js'
import type { WalletSeal } from '../platform/wallet-seal.js'
import type { Store } from '../store/store.js'
import { sellerAnswerStore } from './answer-store.js'
import { sellerChannelStore } from './batch-settlement/channel-store.js'
import { refundEndpointPayment } from './endpoint-refund.js'
import { type EndpointStore, endpointStore, paidUrl } from './endpoints.js'
import { sellerHoldStore } from './hold-store.js'
import { type SettlementWebhooks, settlementWebhooks } from './webhooks/service.js'

/**
 * The seller's side of the platform: endpoints sold through it, their paid calls, webhooks, and what the paid calls
 * leave to settle.
 */
export type SellerService = {
  facilitatorUrl: string
  /**
   * The facilitator in process for a paid endpoint, acting for its payTo (./paid-facilitator.ts); absent: HTTP to
   * facilitatorUrl.
   */
  paidFacilitator?: (receiver: string | undefined) => SellerFacilitator
  /**
   * The facilitator's batch-settlement receiver authorizer (../facilitator/evm/batch-settlement/authorizer.ts); none:
   * no batch-settlement endpoint is created.
   */
  batchReceiverAuthorizer?: Address
  /**
   * HMAC key binding the MPP challenges of paid endpoints (HKDF of the platform wallet key; older keys are still
   * accepted).
   */
  mppSecret: string
  /** How long a paid endpoint's upstream may take, ms (config `platform.paidUpstreamTimeoutMs`; absent: 20 s). */
  paidUpstreamTimeoutMs?: number
  endpoints: EndpointStore
  /** The chain an endpoint is paid on; undefined when this deployment does not serve it now. */
  endpointChain(network: string): EvmChain | undefined
  /** Batch-settlement channels paying the endpoints, shared by replicas (./batch-settlement/channel-store.ts). */
  sellerChannels: ChannelStore
  /**
   * Paid answers by payment id, so a repeated payment is answered, never refused; shared by replicas
   * (./answer-store.ts).
   */
  sellerAnswers: AnswerStore
  /**
   * auth-capture holds of the endpoints (paymentInfo, saltNonce, what was captured and refunded), shared by replicas
   * (./hold-store.ts).
   */
  sellerHolds: HoldStore
  /** A seller refunds a captured auth-capture payment of one of its endpoints (./endpoint-refund.ts). */
  refundPayment(userId: string, body: { paymentId: string; amount?: string }): Promise<RefundAnswer>
  /** Sellers' signed settlement webhooks: secrets, the persisted queue, its delivery (./webhooks/). */
  webhooks: SettlementWebhooks
  /** A paid call's settlement webhook could not be queued: logged, the paid call answered all the same. */
  webhookNotQueued(err: unknown, endpointId: string): void
  /** The platform's base URL ({agents_url}), for the paid URLs of endpoints. */
  platformUrl: string
}

export type SellerServiceParameters = {
  facilitatorUrl: string
  paidFacilitator?: (receiver: string | undefined) => SellerFacilitator
  batchReceiverAuthorizer?: Address
  mppSecret: string
  /** Config `platform.paidUpstreamTimeoutMs`. */
  paidUpstreamTimeoutMs?: number
  store: Store
  /** Users, agents and their wallets (an endpoint's payTo may be an agent of its user). */
  platform: PlatformStore
  seal: WalletSeal | undefined
  evm: Record<string, EvmChain>
  egress: Egress
  platformUrl: string
  log: Logger
}

export function sellerService(p: SellerServiceParameters): SellerService {
  const endpoints = endpointStore(p.store)
  const sellerHolds = sellerHoldStore(p.store)
  const webhooks = settlementWebhooks({ store: p.store, endpoints, seal: p.seal, log: p.log, fetch: p.egress.fetch })
  return {
    facilitatorUrl: p.facilitatorUrl,
    paidFacilitator: p.paidFacilitator,
    batchReceiverAuthorizer: p.batchReceiverAuthorizer,
    mppSecret: p.mppSecret,
    paidUpstreamTimeoutMs: p.paidUpstreamTimeoutMs,
    endpoints,
    endpointChain: (network) => p.evm[network],
    sellerChannels: sellerChannelStore(p.store),
    sellerAnswers: sellerAnswerStore(p.store),
    sellerHolds,
    refundPayment: (userId, body) =>
      refundEndpointPayment(
        {
          endpoints,
          holds: sellerHolds,
          evm: p.evm,
          agent: (id) => p.platform.agent(id),
          walletKey: (a) => p.platform.walletKey(a),
          facilitatorFor: (payTo) => p.paidFacilitator?.(payTo) ?? facilitatorClient({ url: p.facilitatorUrl }),
          // The refund's webhook (payment.refunded), queued before the seller hears back.
          onRefunded: ({ endpoint, hold, result }) =>
            webhooks.record({
              endpoint,
              paidUrl: paidUrl(p.platformUrl, endpoint.id),
              payment: { paymentId: hold.id, refunded: hold.refunded },
              protocol: 'x402',
              result,
            }),
        },
        userId,
        body,
      ),
    webhooks,
    webhookNotQueued: (err, endpointId) =>
      p.log.warn({ err, endpoint: endpointId }, 'settlement webhook: the event could not be queued'),
    platformUrl: p.platformUrl,
  }
}
