import Conf from 'conf'
import { checkUserConfig } from './user-config-file.js'

/**
 * Opens the config file for the CLI ($PARX_CONFIG_DIR/config.json, else ~/.config/parx/config.json),
 * checked first (./user-config-file.ts): a too-open file or folder is narrowed, a corrupt file refused.
 * conf writes a 0600 temporary file and renames it, so the file is 0600 from its first byte.
 */
export function openUserConfig(ctx: {
  env: NodeJS.ProcessEnv
  stderr(line: string): void
}): Conf<Record<string, unknown>> {
  const dir = checkUserConfig(ctx)
  return new Conf<Record<string, unknown>>({ projectName: 'parx', projectSuffix: '', configFileMode: 0o600, cwd: dir })
}
