import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { packageRoot } from '../../../src/config/package-root.js'
import { BaseError } from '../../../src/errors/index.js'

/**
 * The readable page of /api/openapi.json: Redoc's standalone build (one self-contained file of the
 * `redoc` package), served by the daemon itself, never from a CDN. Relative URLs, so the page works
 * behind a proxy that serves the API under a prefix.
 */
export const docsHtml = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>parx API</title>
</head>
<body>
<redoc spec-url="openapi.json"></redoc>
<script src="docs/redoc.standalone.js"></script>
</body>
</html>
`

/**
 * Same origin only, as the dashboard's (daemon/http/routes/dashboard/page.ts), with two allowances
 * Redoc needs: inline styles (styled-components writes its CSS into <style> elements at run time)
 * and a worker from a blob: URL (its search index). No inline or foreign script runs; the page
 * holds no credential and submits nothing.
 */
export const DOCS_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
  "img-src 'self' data:; font-src 'self' data:; connect-src 'self'; worker-src " +
  "blob:; form-action 'none'; frame-ancestors 'none'; base-uri 'none'"

let bundle: Promise<Buffer> | undefined

/**
 * Read on the first request (about 1 MB), then kept: `parx serve` never reads it at start. The build
 * (scripts/build.js) copies it from the `redoc` devDependency into dist/docs/, which the package
 * ships, so an installed parx serves it without redoc's dependency tree.
 */
export function redocBundle(): Promise<Buffer> {
  const file = join(packageRoot(), 'dist', 'docs', 'redoc.standalone.js')
  return (bundle ??= readFile(file).catch(() => {
    bundle = undefined
    throw new BaseError('NOT_FOUND', `the API docs page's script is not built (${file} is missing): run npm run build`)
  }))
}
