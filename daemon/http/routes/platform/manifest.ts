import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import { buildManifest } from '../../../platform/manifest.js'
import { platformRoute } from './contract-route.js'

const r = platformRoutes.manifest

export default platformRoute(r, (c, s) =>
  c.json(
    buildManifest({
      profile: s.profile,
      version: s.version,
      facilitatorUrl: s.facilitatorUrl,
      tokenAddress: s.tokenAddress,
      receiptSigner: s.receipts.signer,
    }),
  ),
)
