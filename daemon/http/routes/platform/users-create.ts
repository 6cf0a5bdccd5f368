import { BaseError } from '../../../../src/errors/index.js'
import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import { route } from '../../route.js'
import { userView } from '../../../platform/views.js'
import { platformBody } from './body.js'

const r = platformRoutes.createUser

/** The non-browser way to a user key (scripts, CI): operator token, local profile only. */
export default route({
  method: r.method, path: r.path, auth: 'operator', surface: 'platform',
  handler: async (c, s) => {
    if (s.profile !== 'local') throw new BaseError('PROFILE_ONLY', `users are created here on the local profile only; this daemon runs ${s.profile}, where users sign in with their wallet on the dashboard`)
    const body = await platformBody(c, r.body)
    if (body.wallet && (await s.store.userByWallet(body.wallet))) throw new BaseError('ALREADY_EXISTS', `a user is already bound to ${body.wallet}`)
    const { user, userKey } = await s.store.createUser(body)
    return c.json({ user: userView(user, { agents: 0, endpoints: 0 }), userKey })
  },
})
