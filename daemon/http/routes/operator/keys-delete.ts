import { route } from '../../route.js'
import { changeKeyState, KeyParams } from './key-state.js'

export default route({
  method: 'DELETE',
  path: '/api/operator/keys/:id',
  auth: 'operator',
  surface: 'keys',
  params: KeyParams,
  handler: (c, s, { params }) => changeKeyState(c, s, params.id, 'deleted'),
})
