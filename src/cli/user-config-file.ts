import { chmodSync, mkdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { userConfigDir } from '../config/paths.js'
import { CliError } from './errors.js'

/**
 * Checks the CLI's config file ($PARX_CONFIG_DIR/config.json, else ~/.config/parx/config.json) and
 * returns its folder, created 0700. A file or folder another user could read is narrowed, saying so
 * on stderr; a file that is not JSON is refused with its name, never overwritten. Apart from conf
 * (./user-config.ts), which brings ajv: `parx serve` checks the file without loading it.
 */
export function checkUserConfig(ctx: { env: NodeJS.ProcessEnv; stderr(line: string): void }): string {
  const dir = userConfigDir(ctx.env)
  const file = join(dir, 'config.json')
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  narrow(dir, 0o700, ctx)
  let text: string | undefined
  try {
    text = readFileSync(file, 'utf8')
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e
  }
  if (text !== undefined) {
    narrow(file, 0o600, ctx)
    try {
      const parsed: unknown = text.trim() === '' ? {} : JSON.parse(text)
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
        throw new CliError('CONFIG_CORRUPT', 'not a JSON object')
    } catch (e) {
      throw new CliError(
        'CONFIG_CORRUPT',
        `the config file ${file} is corrupt (${(e as Error).message}): ` +
          `fix it, or delete it to start over (credentials in it are lost)`,
      )
    }
  }
  return dir
}

function narrow(path: string, mode: number, ctx: { stderr(line: string): void }): void {
  const current = statSync(path).mode & 0o777
  if ((current & ~mode) === 0) return
  try {
    chmodSync(path, mode)
  } catch {
    // Not ours to change: a shared folder someone named on purpose with PARX_CONFIG_DIR. Left as it is.
    return
  }
  ctx.stderr(
    `warning: ${path} had mode ${current.toString(8).padStart(4, '0')}; ` +
      `set it to ${mode.toString(8).padStart(4, '0')} so only you can read it`,
  )
}
