import { route } from '../../route.js'
import { changeKeyState } from './key-state.js'

export default route({
  method: 'DELETE', path: '/api/operator/keys/:id', auth: 'operator', surface: 'keys',
  handler: (c, s) => changeKeyState(c, s, 'deleted'),
})
