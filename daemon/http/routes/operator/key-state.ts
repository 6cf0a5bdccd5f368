import type { Context } from 'hono'
import { BaseError } from '../../../../src/errors/index.js'
import type { KeyState } from '../../../auth/partner-keys.js'
import type { KeysService } from '../../../auth/service.js'

/** Moves a key to a new state and drops its cached verdict so the change applies at once here. */
export async function changeKeyState(c: Context, s: KeysService, state: KeyState): Promise<Response> {
  const id = c.req.param('id')!
  const current = await s.get(id)
  if (!current || current.state === 'deleted') throw new BaseError('NOT_FOUND', `no partner key with id ${id}; list them with \`parx keys list\``)
  if (state === 'deactivated' && current.state !== 'active') {
    throw new BaseError('BAD_REQUEST', `key ${id} is ${current.state}; only an active key can be deactivated`)
  }
  const updated = (await s.setState(id, state))!
  return c.json(updated)
}
