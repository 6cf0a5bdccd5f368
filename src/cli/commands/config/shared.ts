import { loadConfig, openConfigFile } from '../../../config/load.js'
import type { CliContext } from '../../context.js'

/** The daemon's settings live under `serve` in the per-user config file. */
export const SECTION = 'serve'

export function configFile(ctx: CliContext) {
  return openConfigFile(ctx.env)
}

/** Values are JSON when they parse as JSON (numbers, booleans, arrays), plain strings otherwise. */
export function parseValue(raw: string): unknown {
  try {
    return JSON.parse(raw)
  } catch {
    return raw
  }
}

/** Refuses to write a file the daemon would reject: validate the would-be result with the one schema. */
export function validateSection(section: Record<string, unknown>): void {
  loadConfig({ env: {}, file: section })
}
