import { BaseError } from '../../../../src/errors/index.js'
import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import { userView } from '../../../platform/views.js'
import { platformRoute } from './contract-route.js'

const r = platformRoutes.createUser

/** The non-browser way to a user key (scripts, CI): operator token, local profile only. */
export default platformRoute(r, async (c, s, { body }) => {
  if (s.profile !== 'local')
    throw new BaseError(
      'PROFILE_ONLY',
      `users are created here on the local profile only; this daemon runs ` +
        `${s.profile}, where users sign in with their wallet on the dashboard`,
    )
  const { user, userKey } = await s.users.create(body)
  return c.json({ user: userView(user, { agents: 0, endpoints: 0 }), userKey })
})
