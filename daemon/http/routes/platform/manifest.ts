import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import { route } from '../../route.js'
import { buildManifest } from '../../../platform/manifest.js'

const r = platformRoutes.manifest

export default route({
  method: r.method, path: r.path, auth: 'open', surface: 'platform',
  handler: (c, s) => c.json(buildManifest({ profile: s.profile, version: s.version, facilitatorUrl: s.facilitatorUrl, tokenAddress: s.tokenAddress })),
})
