import type { CliContext } from '../context.js'
import { maskKey, saveCredentials, type Credentials } from '../credentials.js'
import { usageError } from '../errors.js'
import { askFor } from '../prompt.js'

export type LoginResult = { stored: (keyof Credentials)[]; key: string; path: string; validated: false }

/**
 * Stores a key given on the command line or, on a terminal, read from a hidden prompt. The platform
 * routes that validate keys come later; until then the key is stored as given (`validated: false`).
 */
export async function storeKey(
  ctx: CliContext,
  opts: { field: 'userKey' | 'agentKey'; flag: string; given?: string; message: string; extra?: Credentials },
): Promise<LoginResult> {
  const key = opts.given ?? (await askFor(ctx, { flag: opts.flag, message: opts.message, secret: true }))
  if (!/^\S{8,}$/.test(key)) throw usageError(`${opts.flag} does not look like a key (at least 8 characters, no spaces)`)
  const path = await saveCredentials(ctx, { [opts.field]: key, ...opts.extra })
  return { stored: [opts.field, ...(Object.keys(opts.extra ?? {}) as (keyof Credentials)[])], key: maskKey(key), path, validated: false }
}
