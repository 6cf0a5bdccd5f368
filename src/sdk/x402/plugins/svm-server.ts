import type {
  AssetAmount,
  Network,
  PaymentFlowConfig,
  PaymentRequirements,
  Price,
  SchemeNetworkServer,
  SupportedKind,
} from '@x402/core/types'
import { EXACT, methods } from '../types.js'
import { authorizationFlow, type DefaultAsset, enhance, parsePrice } from './server-base.js'

/**
 * `exact` on Solana for @x402/core's x402ResourceServer: offers delegated-spl (default) or the
 * reference transaction form; the facilitator's fee payer and delegate come from /supported.
 */
export class ParxSvmServerScheme implements SchemeNetworkServer {
  readonly scheme = EXACT
  readonly defaultAssetTransferMethod = methods.delegatedSpl
  readonly paymentFlows: Readonly<Record<string, PaymentFlowConfig>> = {
    [methods.delegatedSpl]: authorizationFlow,
    // The reference form names no method on the wire ("default" in @x402/core).
    default: authorizationFlow,
  }

  constructor(private readonly assets: Record<string, DefaultAsset> = {}) {}

  parsePrice(price: Price, network: Network): Promise<AssetAmount> {
    return parsePrice(this.assets, price, network)
  }

  getAssetDecimals(asset: string, network: Network): number | undefined {
    return this.assets[network]?.asset === asset ? this.assets[network]!.decimals : undefined
  }

  async enhancePaymentRequirements(r: PaymentRequirements, kind: SupportedKind): Promise<PaymentRequirements> {
    return enhance(r, kind, this.defaultAssetTransferMethod)
  }
}
