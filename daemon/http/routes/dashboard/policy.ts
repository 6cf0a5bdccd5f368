import { dashboardPaths, idParams } from '../../../../src/sdk/dashboard/index.js'
import { agentPolicy, setPayeeRulesBody } from '../../../../src/sdk/platform/policy.js'
import { route } from '../../route.js'

/** The agent page's rules form: the platform's POST /api/agents/:id/policy, signed in with the session. */
export const agentPolicySet = route({
  method: 'POST',
  path: dashboardPaths.agentPolicy,
  auth: 'session',
  surface: 'dashboard',
  params: idParams,
  body: setPayeeRulesBody,
  maxBody: 65_536,
  summary:
    "set the agent's payee and network rules (a list left out stays; " +
    "null clears it); its allowHosts is its limits' allowedHosts",
  response: agentPolicy,
  errors: ['NOT_FOUND'],
  handler: async (c, s, { session, params, body }) => c.json(await s.setPolicy(session.wallet, params.id, body)),
})
