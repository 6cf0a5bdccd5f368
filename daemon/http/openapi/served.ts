import { packageVersion } from '../../../src/cli/package-root.js'
import { routes } from '../routes/index.js'
import { openApiDocument } from './document.js'

let cached: string | undefined

/**
 * The document of this daemon's routes, generated on the first request (half a second of work
 * with the generator loaded then, so `parx serve` never waits for it) and kept: the route table
 * does not change while the process runs. Kept serialized (about 150 KB): each request sends it as is.
 */
export function servedDocument(): string {
  return (cached ??= JSON.stringify(openApiDocument({ routes, version: packageVersion() }).document))
}
