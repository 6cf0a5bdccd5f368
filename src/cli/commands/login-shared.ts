import type { CliContext } from '../context.js'
import { type Credentials, maskKey, saveCredentials } from '../credentials.js'
import { usageError } from '../errors.js'
import { askFor } from '../prompt.js'

export type LoginResult<W> = { stored: (keyof Credentials)[]; key: string; path: string; validated: true; whoami: W }

/**
 * A key given on the command line or, on a terminal, read from a hidden prompt; checked against
 * the platform (`check` asks it who the key is) before anything is stored, so a wrong or revoked
 * key never reaches the config file.
 */
export async function storeKey<W>(
  ctx: CliContext,
  opts: {
    field: 'userKey' | 'agentKey'
    flag: string
    given?: string
    message: string
    check: (key: string) => Promise<W>
    extra?: (w: W) => Credentials
  },
): Promise<LoginResult<W>> {
  const key = opts.given ?? (await askFor(ctx, { flag: opts.flag, message: opts.message, secret: true }))
  if (!/^\S{8,}$/.test(key))
    throw usageError(`${opts.flag} does not look like a key (at least 8 characters, no spaces)`)
  const whoami = await opts.check(key)
  const extra = opts.extra?.(whoami) ?? {}
  const path = await saveCredentials(ctx, { [opts.field]: key, ...extra })
  return {
    stored: [opts.field, ...(Object.keys(extra) as (keyof Credentials)[])],
    key: maskKey(key),
    path,
    validated: true,
    whoami,
  }
}
