import type { CliContext } from '../../context.js'
import { usageError } from '../../errors.js'

/** The daemon's settings live under `serve` in the per-user config file. */
export const SECTION = 'serve'

/** The per-user config file (conf, 0600), loaded on use: --help never pays for conf and zod. */
export async function configFile(ctx: Pick<CliContext, 'env' | 'stderr'>) {
  const { openUserConfig } = await import('../../user-config.js')
  return openUserConfig(ctx)
}

/** Values are JSON when they parse as JSON (numbers, booleans, arrays), plain strings otherwise. */
export function parseValue(raw: string): unknown {
  try {
    return JSON.parse(raw)
  } catch {
    return raw
  }
}

/**
 * Refuses to write a file the daemon would reject: validate the would-be result with the one schema,
 * and refuse a key the schema does not know (it would be dropped silently and do nothing).
 */
export async function validateSection(section: Record<string, unknown>, key: string): Promise<void> {
  const { loadConfig } = await import('../../../config/load.js')
  const resolved = loadConfig({ env: {}, file: section }) as unknown as Record<string, unknown>
  let node: unknown = resolved
  for (const part of key.split('.'))
    node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[part] : undefined
  if (node === undefined)
    throw usageError(
      `unknown setting '${key}': see \`parx config get\` and docs/hosting.md ` +
        `"Pointing at real networks" for the keys the daemon reads`,
    )
}
