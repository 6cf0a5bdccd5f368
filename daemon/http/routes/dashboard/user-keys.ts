import { dashboardPaths, idParams } from '../../../../src/sdk/dashboard/index.js'
import { route } from '../../route.js'

/**
 * Command line access (docs/dashboard.md "Dashboard"): user keys of the wallet's platform user, for `parx auth user
 * login`.
 */
export const userKeysList = route({
  method: 'GET',
  path: dashboardPaths.userKeys,
  auth: 'session',
  surface: 'dashboard',
  handler: async (c, s, { session }) => c.json(await s.listUserKeys(session.wallet)),
})

export const userKeysCreate = route({
  method: 'POST',
  path: dashboardPaths.userKeys,
  auth: 'session',
  surface: 'dashboard',
  handler: async (c, s, { session }) => c.json(await s.createUserKey(session.wallet)),
})

export const userKeysRevoke = route({
  method: 'DELETE',
  path: dashboardPaths.userKey,
  auth: 'session',
  surface: 'dashboard',
  params: idParams,
  handler: async (c, s, { session, params }) => c.json(await s.revokeUserKey(session.wallet, params.id)),
})
