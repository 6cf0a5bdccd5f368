import Conf from 'conf'
import { chmodSync, mkdirSync } from 'node:fs'
import { BaseError, UsageError } from '../errors/index.js'
import { configFromEnv } from './env.js'
import { defaultDataDir, userConfigDir } from './paths.js'
import { configSchema, type ParxConfig } from './schema.js'

/** The per-user config file (mode 0600). PARX_CONFIG_DIR moves it (tests, several daemons). */
export function openConfigFile(env: NodeJS.ProcessEnv = process.env): Conf<Record<string, unknown>> {
  // The folder holds keys: 0700 from the start (conf alone would create it 0755), and tightened if
  // an older version or a loose umask made it wider.
  const cwd = userConfigDir(env)
  try {
    mkdirSync(cwd, { recursive: true, mode: 0o700 })
    try {
      chmodSync(cwd, 0o700)
    } catch {
      // Not ours to change (PARX_CONFIG_DIR pointing at a shared folder): left as it is.
    }
    return new Conf<Record<string, unknown>>({ projectName: 'parx', projectSuffix: '', configFileMode: 0o600, cwd })
  } catch (e) {
    const err = e as NodeJS.ErrnoException
    throw new UsageError('BAD_REQUEST', `cannot open the config file in ${cwd} (${err.code ?? err.message}); fix its permissions or set PARX_CONFIG_DIR`, { cause: e })
  }
}

export type LoadConfigParameters = {
  /** Values from command-line flags (highest precedence); undefined entries are ignored. */
  flags?: Record<string, unknown>
  env?: NodeJS.ProcessEnv
  /** The `serve` section of the config file; read from disk when omitted. */
  file?: Record<string, unknown>
}

/** Merges the sources, validates once, and returns a frozen config. */
export function loadConfig(params: LoadConfigParameters = {}): Readonly<ResolvedConfig> {
  const env = params.env ?? process.env
  const file = params.file ?? ((openConfigFile(env).get('serve') as Record<string, unknown> | undefined) ?? {})
  const merged = deepMerge(deepMerge(file, configFromEnv(env)), stripUndefined(params.flags ?? {}))
  const parsed = configSchema.safeParse(merged)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!
    throw new UsageError('BAD_REQUEST', `invalid configuration at ${issue.path.join('.') || '(root)'}: ${issue.message}`, {
      details: 'Check the flag, the PARX_* variable or the config file (parx config path) that sets it.',
    })
  }
  const config = parsed.data
  const dataDir = config.dataDir ?? defaultDataDir(config.profile, env)
  return deepFreeze({ ...config, dataDir })
}

export type ResolvedConfig = ParxConfig & { dataDir: string }


function stripUndefined(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined))
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function deepMerge(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...a }
  for (const [k, v] of Object.entries(b)) out[k] = isPlainObject(v) && isPlainObject(out[k]) ? deepMerge(out[k] as Record<string, unknown>, v) : v
  return out
}

function deepFreeze<T>(o: T): T {
  if (isPlainObject(o) || Array.isArray(o)) {
    for (const v of Object.values(o as object)) deepFreeze(v)
    Object.freeze(o)
  }
  return o
}

export { defaultDataDir }
