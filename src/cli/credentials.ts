import type { CliContext } from './context.js'

/**
 * The platform credentials, kept in the per-user config file under `platform` (mode 0600; see
 * user-config.ts) and overridden by the environment. Nothing else about the platform is stored.
 */
export type Credentials = {
  /** Platform base URL; the local daemon's API URL when unset. */
  agentsUrl?: string
  agentKey?: string
  /** The default agent's UUID. */
  agentId?: string
  userKey?: string
}

export const CREDENTIALS_SECTION = 'platform'

/** Environment overrides, one per field. */
export const credentialEnv = {
  agentsUrl: 'PARX_AGENTS_URL',
  agentKey: 'PARX_AGENT_KEY',
  agentId: 'PARX_AGENT_ID',
  userKey: 'PARX_USER_KEY',
} as const satisfies Record<keyof Credentials, string>

export type CredentialSource = 'env' | 'file' | 'default'

type Ctx = Pick<CliContext, 'env' | 'stderr' | 'apiUrl'>

async function open(ctx: Pick<CliContext, 'env' | 'stderr'>) {
  const { openUserConfig } = await import('./user-config.js')
  return openUserConfig(ctx)
}

/** What is stored, without the environment. */
export async function storedCredentials(ctx: Pick<CliContext, 'env' | 'stderr'>): Promise<Credentials> {
  const file = await open(ctx)
  return { ...((file.get(CREDENTIALS_SECTION) as Credentials | undefined) ?? {}) }
}

/** The credentials in effect: environment over the file; agentsUrl defaults to the local daemon. */
export async function resolveCredentials(ctx: Ctx): Promise<{
  values: Required<Pick<Credentials, 'agentsUrl'>> & Credentials
  sources: Partial<Record<keyof Credentials, CredentialSource>>
}> {
  const stored = await storedCredentials(ctx)
  const values: Credentials = {}
  const sources: Partial<Record<keyof Credentials, CredentialSource>> = {}
  for (const [field, name] of Object.entries(credentialEnv) as [keyof Credentials, string][]) {
    if (ctx.env[name]) {
      values[field] = ctx.env[name]
      sources[field] = 'env'
    } else if (stored[field]) {
      values[field] = stored[field]
      sources[field] = 'file'
    }
  }
  if (!values.agentsUrl) {
    values.agentsUrl = ctx.apiUrl
    sources.agentsUrl = 'default'
  }
  return { values: values as Credentials & { agentsUrl: string }, sources }
}

/** Stores some fields (only the known ones ever reach the file). */
export async function saveCredentials(ctx: Pick<CliContext, 'env' | 'stderr'>, patch: Credentials): Promise<string> {
  const file = await open(ctx)
  const next: Credentials = { ...((file.get(CREDENTIALS_SECTION) as Credentials | undefined) ?? {}) }
  for (const field of Object.keys(credentialEnv) as (keyof Credentials)[])
    if (patch[field] !== undefined) next[field] = patch[field]
  file.set(CREDENTIALS_SECTION, next)
  return file.path
}

/** Removes fields; the section goes when it is empty. Returns the fields that were stored. */
export async function removeCredentials(
  ctx: Pick<CliContext, 'env' | 'stderr'>,
  fields: (keyof Credentials)[],
): Promise<{ removed: (keyof Credentials)[]; path: string }> {
  const file = await open(ctx)
  const current: Credentials = { ...((file.get(CREDENTIALS_SECTION) as Credentials | undefined) ?? {}) }
  const removed = fields.filter((f) => current[f] !== undefined)
  for (const f of fields) delete current[f]
  if (Object.keys(current).length === 0) file.delete(CREDENTIALS_SECTION)
  else file.set(CREDENTIALS_SECTION, current)
  return { removed, path: file.path }
}

/** A key as it may be shown: its prefix and last 4 characters, never the whole secret. */
export function maskKey(key: string): string {
  const prefix = /^[A-Za-z]{2,12}[-_]/.exec(key)?.[0] ?? key.slice(0, 4)
  if (key.length <= prefix.length + 8) return `${prefix}…`
  return `${prefix}…${key.slice(-4)}`
}
