import { xchainPaths } from '../../../../src/sdk/xchain/wire.js'
import { route } from '../../route.js'

/** Operator: the solver worker's liveness (leader, last pass, pause switches, orders by stage, attestors). */
export default route({
  method: 'GET',
  path: xchainPaths.heartbeat,
  auth: 'operator',
  surface: 'xchain',
  handler: async (c, s) => c.json(await s.heartbeat()),
})
