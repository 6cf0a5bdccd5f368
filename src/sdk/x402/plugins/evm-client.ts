import type {
  PaymentPayloadContext,
  PaymentPayloadResult,
  PaymentRequirements,
  PaymentRequirementsV1,
  SchemeNetworkClient,
} from '@x402/core/types'
import { BaseError } from '../../../errors/base.js'
import { canPay, type PayerKeys, signPayment } from '../client/payer.js'
import { EXACT } from '../types.js'

/**
 * `exact` on EVM for @x402/core's x402Client (so for @x402/fetch and friends): signs erc2612
 * permits and eip3009 authorizations; anything else (permit2) goes to `fallback`, e.g. @x402/evm's
 * own ExactEvmScheme, when given.
 *
 * @example
 * const client = new x402Client().register('eip155:*', new ParxEvmClientScheme({ signer: account, clients:
 * [publicClient] }))
 * const pay = wrapFetchWithPayment(fetch, client)
 */
export class ParxEvmClientScheme implements SchemeNetworkClient {
  readonly scheme = EXACT
  constructor(
    private readonly keys: NonNullable<PayerKeys['evm']>,
    private readonly fallback?: SchemeNetworkClient,
  ) {}

  async createPaymentPayload(
    x402Version: number,
    requirements: PaymentRequirements,
    context?: PaymentPayloadContext,
  ): Promise<PaymentPayloadResult> {
    const v1 = requirements as unknown as Partial<PaymentRequirementsV1>
    const r = { ...requirements, amount: requirements.amount ?? v1.maxAmountRequired ?? '' }
    if (!canPay({ evm: this.keys }, r)) {
      if (this.fallback) return this.fallback.createPaymentPayload(x402Version, requirements, context)
      throw new BaseError(
        'SELLER_METHOD_UNSUPPORTED',
        `ParxEvmClientScheme cannot pay assetTransferMethod ` +
          `'${String(r.extra?.assetTransferMethod)}' and has no fallback`,
      )
    }
    const payload = await signPayment({ evm: this.keys }, r)
    // v1 clients send the scheme payload whole; core passes it through as is.
    return x402Version === 1
      ? ({ x402Version: 1, scheme: r.scheme, network: r.network, payload } as unknown as PaymentPayloadResult)
      : { x402Version, payload }
  }
}
