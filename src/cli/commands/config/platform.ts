import { checkUrl } from '../../api-url.js'
import type { CliContext } from '../../context.js'
import {
  CREDENTIALS_SECTION,
  type Credentials,
  maskKey,
  saveCredentials,
  storedCredentials,
} from '../../credentials.js'
import { usageError } from '../../errors.js'

/** `platform.*` keys of `parx config get|set`: the credentials side of the config file. */
export const PLATFORM_PREFIX = `${CREDENTIALS_SECTION}.`

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** Sets platform.agentsUrl or platform.agentId; keys go through `login`, which can ask for them hidden. */
export async function setPlatform(key: string, raw: string, ctx: CliContext): Promise<{ value: string; path: string }> {
  const field = key.slice(PLATFORM_PREFIX.length)
  if (field === 'agentsUrl')
    return {
      value: checkUrl(raw, 'platform.agentsUrl'),
      path: await saveCredentials(ctx, { agentsUrl: checkUrl(raw, 'platform.agentsUrl') }),
    }
  if (field === 'agentId') {
    if (!uuid.test(raw)) throw usageError(`platform.agentId '${raw}' is not a UUID`)
    return { value: raw, path: await saveCredentials(ctx, { agentId: raw }) }
  }
  if (field === 'agentKey' || field === 'userKey')
    throw usageError(
      `set ${key} with \`parx ${field === 'agentKey' ? 'agent login' : 'auth user login'}\` ` +
        `(it can ask for the key hidden)`,
    )
  throw usageError(
    `unknown setting '${key}': the platform keys are platform.agentsUrl, ` +
      `platform.agentId, platform.agentKey, platform.userKey`,
  )
}

/** The stored platform settings, keys masked (prefix and last 4). */
export async function getPlatform(key: string | undefined, ctx: CliContext): Promise<unknown> {
  const stored = await storedCredentials(ctx)
  const shown: Credentials = { ...stored }
  if (shown.agentKey) shown.agentKey = maskKey(shown.agentKey)
  if (shown.userKey) shown.userKey = maskKey(shown.userKey)
  if (key === undefined || key === CREDENTIALS_SECTION) return shown
  return shown[key.slice(PLATFORM_PREFIX.length) as keyof Credentials] ?? null
}
