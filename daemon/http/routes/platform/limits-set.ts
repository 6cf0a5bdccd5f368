import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import { platformRoute } from './contract-route.js'
import { limitsView } from '../../../platform/views.js'

const r = platformRoutes.setLimits

/** Only the owning user sets limits: an agent key, even on its own agent, is FORBIDDEN. */
export default platformRoute(r, async (c, s, { body, params, caller }) => {
  const agent = await s.ownedAgent(caller, params.id)
  s.userOf(caller)
  const updated = await s.store.setLimits(agent.id, body)
  return c.json(limitsView(updated, await s.spends.budget(agent.id)))
})
