import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { delimiter, dirname, join } from 'node:path'

/**
 * Finds an npm package the gasless-send stack needs (`@pimlico/alto`, the EntryPoint v0.8
 * artifacts) that is not always installed: first the project's own node_modules, then each
 * folder in PARX_AA_MODULES (folders holding a node_modules/, `:`-separated), so a machine can
 * provide them beside the project. Returns the package folder, or undefined.
 */
export function findPackage(names: readonly string[], accept: (pkg: { name: string; version: string }) => boolean = () => true): string | undefined {
  const roots = [import.meta.url, ...(process.env.PARX_AA_MODULES ?? '').split(delimiter).filter(Boolean).map((d) => join(d, 'noop.js'))]
  for (const root of roots) {
    const require = createRequire(root)
    for (const name of names) {
      // The node_modules folders Node would search, read directly: a package's `exports` may hide package.json.
      const pkgJson = (require.resolve.paths(name) ?? []).map((d) => join(d, name, 'package.json')).find((f) => existsSync(f))
      if (!pkgJson) continue
      const pkg = JSON.parse(readFileSync(pkgJson, 'utf8')) as { name: string; version: string }
      if (accept(pkg)) return dirname(pkgJson)
    }
  }
  return undefined
}

/** The alto bundler's CLI script, or undefined when @pimlico/alto is not installed. */
export function altoScript(): string | undefined {
  const dir = findPackage(['@pimlico/alto'])
  const script = dir && join(dir, 'esm', 'cli', 'alto.js')
  return script && existsSync(script) ? script : undefined
}

/** The artifacts folder of @account-abstraction/contracts 0.8 (installed as itself or under an alias). */
export function entryPoint08Artifacts(): string | undefined {
  const dir = findPackage(['@account-abstraction/contracts-v08', '@account-abstraction/contracts-0.8', '@account-abstraction/contracts'], (p) => p.version.startsWith('0.8.'))
  return dir && join(dir, 'artifacts')
}
