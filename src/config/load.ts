import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { UsageError } from '../errors/index.js'
import { configFromEnv } from './env.js'
import { defaultDataDir, userConfigDir } from './paths.js'
import { configSchema, type ParxConfig } from './schema.js'

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
  const file = params.file ?? serveSection(env)
  const merged = deepMerge(deepMerge(file, configFromEnv(env)), stripUndefined(params.flags ?? {}))
  const parsed = configSchema.safeParse(merged)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!
    throw new UsageError(
      'BAD_REQUEST',
      `invalid configuration at ${issue.path.join('.') || '(root)'}: ${issue.message}`,
      {
        details: 'Check the flag, the PARX_* variable or the config file (parx config path) that sets it.',
      },
    )
  }
  const config = parsed.data
  const dataDir = config.dataDir ?? defaultDataDir(config.profile, env)
  return deepFreeze({ ...config, dataDir })
}

export type ResolvedConfig = ParxConfig & { dataDir: string }

/**
 * The `serve` section of the file openConfigFile (./config-file.ts) writes, read as the JSON it is:
 * conf (with ajv and semver, ~0.1 s to load) stays out of `parx serve`'s start. No file: no settings.
 */
function serveSection(env: NodeJS.ProcessEnv): Record<string, unknown> {
  const file = join(userConfigDir(env), 'config.json')
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (e) {
    const err = e as NodeJS.ErrnoException
    if (err.code === 'ENOENT') return {}
    throw new UsageError(
      'BAD_REQUEST',
      `cannot open the config file ${file} (${err.code ?? err.message}); fix its permissions or set PARX_CONFIG_DIR`,
      { cause: e },
    )
  }
  let parsed: unknown
  try {
    parsed = text.trim() === '' ? {} : JSON.parse(text)
  } catch (e) {
    throw new UsageError(
      'BAD_REQUEST',
      `the config file ${file} is not JSON (${(e as Error).message}): fix it, or delete it to start over`,
      { cause: e },
    )
  }
  const serve = isPlainObject(parsed) ? parsed.serve : undefined
  return isPlainObject(serve) ? serve : {}
}

function stripUndefined(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined))
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function deepMerge(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...a }
  for (const [k, v] of Object.entries(b))
    out[k] = isPlainObject(v) && isPlainObject(out[k]) ? deepMerge(out[k] as Record<string, unknown>, v) : v
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
