import { route } from '../../route.js'
import { changeKeyState, KeyParams } from './key-state.js'

export default route({
  method: 'POST',
  path: '/api/operator/keys/:id/deactivate',
  auth: 'operator',
  surface: 'keys',
  params: KeyParams,
  handler: (c, s, { params }) => changeKeyState(c, s, params.id, 'deactivated'),
})
