import type { Context } from 'hono'
import { z } from 'zod'
import { BaseError } from '../../../../src/errors/index.js'
import type { KeyState } from '../../../auth/partner-keys.js'
import type { KeysService } from '../../../auth/service.js'

/** The key's id in the path. */
export const KeyParams = z.object({ id: z.string() })

/** Moves a key to a new state and drops its cached verdict so the change applies at once here. */
export async function changeKeyState(c: Context, s: KeysService, id: string, state: KeyState): Promise<Response> {
  const current = await s.get(id)
  if (!current || current.state === 'deleted')
    throw new BaseError('NOT_FOUND', `no partner key with id ${id}; list them with \`parx keys list\``)
  if (state === 'deactivated' && current.state !== 'active') {
    throw new BaseError('BAD_REQUEST', `key ${id} is ${current.state}; only an active key can be deactivated`)
  }
  const updated = (await s.setState(id, state))!
  return c.json(updated)
}
