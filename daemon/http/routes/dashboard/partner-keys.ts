import { createPartnerKeyBody, dashboardPaths, idParams } from '../../../../src/sdk/dashboard/index.js'
import { route } from '../../route.js'

/**
 * The signed-in wallet's partner keys (docs/dashboard.md "Dashboard"): listed masked, the secret shown only by create.
 */
export const partnerKeysList = route({
  method: 'GET',
  path: dashboardPaths.partnerKeys,
  auth: 'session',
  surface: 'dashboard',
  handler: async (c, s, { session }) =>
    c.json({ keys: await s.listPartnerKeys(session.wallet), propagation: s.propagation }),
})

export const partnerKeysCreate = route({
  method: 'POST',
  path: dashboardPaths.partnerKeys,
  auth: 'session',
  surface: 'dashboard',
  body: createPartnerKeyBody,
  maxBody: 4096,
  handler: async (c, s, { session, body }) => c.json(await s.createPartnerKey(session.wallet, body)),
})

export const partnerKeysDeactivate = route({
  method: 'POST',
  path: dashboardPaths.partnerKeyDeactivate,
  auth: 'session',
  surface: 'dashboard',
  params: idParams,
  handler: async (c, s, { session, params }) => c.json(await s.deactivatePartnerKey(session.wallet, params.id)),
})

export const partnerKeysDelete = route({
  method: 'DELETE',
  path: dashboardPaths.partnerKey,
  auth: 'session',
  surface: 'dashboard',
  params: idParams,
  handler: async (c, s, { session, params }) => c.json(await s.deletePartnerKey(session.wallet, params.id)),
})
