import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { BaseError } from '../../../src/errors/index.js'

const require = createRequire(import.meta.url)

/**
 * The folder of an installed dependency, from the node_modules folders Node would search: these
 * packages' `exports` hide package.json and the files we need (alto's CLI, the JSON artifacts).
 */
function packageDir(name: string): string {
  const dir = (require.resolve.paths(name) ?? [])
    .map((d) => join(d, name))
    .find((d) => existsSync(join(d, 'package.json')))
  if (!dir) throw new BaseError('INTERNAL', `the dependency ${name} is not installed: run npm install`)
  return dir
}

/** The alto bundler's CLI script (dependency `@pimlico/alto`). */
export const altoScript = (): string => join(packageDir('@pimlico/alto'), 'esm', 'cli', 'alto.js')

/**
 * The EntryPoint v0.8 artifacts (`@account-abstraction/contracts-v08`, an alias of
 * @account-abstraction/contracts@0.8.0).
 */
export const entryPoint08Artifacts = (): string => join(packageDir('@account-abstraction/contracts-v08'), 'artifacts')
