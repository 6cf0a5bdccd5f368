import { baseInfo } from '../../../swap/base-info.js'
import { route } from '../../route.js'

export default route({
  method: 'GET',
  path: '/api/base/info',
  auth: 'open',
  surface: 'swap',
  handler: async (c, s) => c.json(await baseInfo(s)),
})
