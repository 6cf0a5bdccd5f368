import { route } from '../../route.js'
import { changeKeyState } from './key-state.js'

export default route({
  method: 'POST', path: '/api/operator/keys/:id/deactivate', auth: 'operator', surface: 'keys',
  handler: (c, s) => changeKeyState(c, s, 'deactivated'),
})
