import { route } from '../../route.js'

/**
 * Re-seals every agent wallet key and webhook secret under the current platform wallet key, after
 * a rotation (docs/hosting.md "Hosting safely"; `parx keys reseal`). Idempotent; rows no configured key
 * opens are left as they are and named.
 */
export default route({
  method: 'POST',
  path: '/api/operator/platform/reseal',
  auth: 'operator',
  surface: 'platform',
  handler: async (c, s) => c.json(await s.reseal()),
})
