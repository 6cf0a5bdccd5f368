import type { OpenAPIObject } from 'openapi3-ts/oas31'
import { packageVersion } from '../../../src/cli/package-root.js'
import { routes } from '../routes/index.js'
import { openApiDocument } from './document.js'

let cached: OpenAPIObject | undefined

/**
 * The document of this daemon's routes, generated on the first request (about a second of work
 * with the generator loaded then, so `parx serve` never waits for it) and kept: the route table
 * does not change while the process runs.
 */
export function servedDocument(): OpenAPIObject {
  return (cached ??= openApiDocument({ routes, version: packageVersion() }).document)
}
