import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { BaseError } from '../errors/base.js'

/**
 * The parx package folder (the one with package.json), found by walking up from this module: the
 * same answer from src/config/ under tsx and vitest as from the dist/ bundle or a global install.
 */
export function packageRoot(from = dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir
    if (dirname(dir) === dir) throw new BaseError('INTERNAL', `no package.json above ${from}`)
  }
}

export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version
}
