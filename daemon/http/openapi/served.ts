import { packageVersion } from '../../../src/config/package-root.js'
import type { AnyRoute } from '../route.js'
import { openApiDocument } from './document.js'

const cached = new WeakMap<readonly AnyRoute[], string>()

/**
 * The document of this daemon's routes, generated on the first request (half a second of work
 * with the generator loaded then, so `parx serve` never waits for it) and kept: the route table
 * does not change while the process runs. Kept serialized (about 150 KB): each request sends it as is.
 * The table is passed in by the composition root (daemon/compose/discovery.ts), not imported: the table holds
 * the route that serves this document.
 */
export function servedDocument(routes: readonly AnyRoute[]): string {
  let doc = cached.get(routes)
  if (doc === undefined)
    cached.set(routes, (doc = JSON.stringify(openApiDocument({ routes, version: packageVersion() }).document)))
  return doc
}
