import type {
  PaymentPayloadContext,
  PaymentPayloadResult,
  PaymentRequirements,
  PaymentRequirementsV1,
  SchemeNetworkClient,
} from '@x402/core/types'
import { BaseError } from '../../../errors/base.js'
import { canPay, signPayment } from '../client/payer.js'
import type { MessageSigner } from '../svm/delegated-spl.js'
import { EXACT, UPTO } from '../types.js'

/**
 * `exact` on Solana for @x402/core's x402Client: signs delegated-spl authorizations (the payer
 * approved the facilitator's signer as SPL delegate once); the reference transaction form goes to
 * `fallback` (@x402/svm's ExactSvmScheme) when given.
 */
export class ParxSvmClientScheme implements SchemeNetworkClient {
  readonly scheme: string = EXACT
  constructor(
    private readonly signer: MessageSigner,
    private readonly fallback?: SchemeNetworkClient,
  ) {}

  async createPaymentPayload(
    x402Version: number,
    requirements: PaymentRequirements,
    context?: PaymentPayloadContext,
  ): Promise<PaymentPayloadResult> {
    const v1 = requirements as unknown as Partial<PaymentRequirementsV1>
    const r = { ...requirements, amount: requirements.amount ?? v1.maxAmountRequired ?? '' }
    const keys = { solana: { signer: this.signer } }
    if (!canPay(keys, r)) {
      if (this.fallback) return this.fallback.createPaymentPayload(x402Version, requirements, context)
      throw new BaseError(
        'SELLER_METHOD_UNSUPPORTED',
        `ParxSvmClientScheme cannot pay assetTransferMethod ` +
          `'${String(r.extra?.assetTransferMethod)}' and has no fallback`,
      )
    }
    const payload = await signPayment(keys, r)
    return x402Version === 1
      ? ({ x402Version: 1, scheme: r.scheme, network: r.network, payload } as unknown as PaymentPayloadResult)
      : { x402Version, payload }
  }
}

/**
 * `upto` (metered) on Solana for @x402/core's x402Client: signs parx's upto authorization over
 * delegated-spl for the offer's maximum (the seller settles what it used, never more). The
 * reference's channel-based Solana upto goes to `fallback` when given.
 *
 * @example
 * x402Client.fromConfig({ schemes: [{ network: 'solana:*', client: new ParxSvmUptoClientScheme(keypairSigner(payer)) }]
 * })
 */
export class ParxSvmUptoClientScheme extends ParxSvmClientScheme {
  override readonly scheme: string = UPTO
}
