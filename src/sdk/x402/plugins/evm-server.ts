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
 * `exact` on EVM for @x402/core's x402ResourceServer (so @x402/express, @x402/hono): lets a seller
 * offer erc2612 next to the reference eip3009 and permit2. The method is per route
 * (`extra.assetTransferMethod`), erc2612 by default; the facilitator's spender comes from /supported.
 *
 * @example
 * new x402ResourceServer(new HTTPFacilitatorClient({ url })).register('eip155:84530017', new ParxEvmServerScheme({
 *   'eip155:84530017': { asset: pusd, decimals: 18, name: 'Parx USD', version: '1' },
 * }))
 */
export class ParxEvmServerScheme implements SchemeNetworkServer {
  readonly scheme = EXACT
  readonly defaultAssetTransferMethod: string
  readonly paymentFlows: Readonly<Record<string, PaymentFlowConfig>> = {
    [methods.erc2612]: authorizationFlow,
    [methods.eip3009]: authorizationFlow,
    [methods.permit2]: authorizationFlow,
  }

  constructor(
    private readonly assets: Record<string, DefaultAsset> = {},
    defaultMethod: string = methods.erc2612,
  ) {
    this.defaultAssetTransferMethod = defaultMethod
  }

  parsePrice(price: Price, network: Network): Promise<AssetAmount> {
    return parsePrice(this.assets, price, network)
  }

  getAssetDecimals(asset: string, network: Network): number | undefined {
    const a = this.assets[network]
    return a && a.asset.toLowerCase() === asset.toLowerCase() ? a.decimals : undefined
  }

  async enhancePaymentRequirements(r: PaymentRequirements, kind: SupportedKind): Promise<PaymentRequirements> {
    return enhance(r, kind, this.defaultAssetTransferMethod)
  }
}
