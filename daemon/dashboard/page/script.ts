import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { packageRoot } from '../../../src/config/package-root.js'
import { BaseError } from '../../../src/errors/index.js'

let cached: string | undefined

/**
 * The dashboard's script: the TypeScript modules of daemon/dashboard/client/, bundled by
 * scripts/build.js (run by `npm install` through `prepare`) into dist/dashboard/app.js, which the
 * package ships. Read from the package's dist/ whether the daemon runs from the bundle or from
 * sources (tests build dist/ first), once, on the first request.
 */
export function dashboardJs(): string {
  if (cached !== undefined) return cached
  const file = join(packageRoot(), 'dist', 'dashboard', 'app.js')
  try {
    cached = readFileSync(file, 'utf8')
  } catch {
    throw new BaseError('NOT_FOUND', `the dashboard's script is not built (${file} is missing): run npm run build`)
  }
  return cached
}
