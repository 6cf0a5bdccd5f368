import type { Context } from 'hono'
import { route } from '../../route.js'

const headers = (type: string, csp?: string) => ({
  'content-type': type,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  ...(csp ? { 'content-security-policy': csp } : {}),
})

// The page module (and Redoc's bundle) load on the first request, never at `parx serve`'s start.
const page = () => import('../../openapi/docs-page.js')

/** GET /api/docs: the OpenAPI document as a readable page (Redoc, served from node_modules). */
export const docsPage = route({
  method: 'GET',
  path: '/api/docs',
  auth: 'open',
  surface: 'discovery',
  summary: 'the OpenAPI document as a readable page (Redoc, served by the daemon)',
  contentType: 'text/html',
  handler: async (c: Context) => {
    const { docsHtml, DOCS_CSP } = await page()
    return c.body(docsHtml, 200, { ...headers('text/html; charset=utf-8', DOCS_CSP), 'cache-control': 'no-cache' })
  },
})

/** Redoc's standalone build, the page's one script. */
export const docsScript = route({
  method: 'GET',
  path: '/api/docs/redoc.standalone.js',
  auth: 'open',
  surface: 'discovery',
  summary: "the docs page's script (Redoc's standalone build)",
  contentType: 'text/javascript',
  handler: async (c: Context) => {
    const { redocBundle } = await page()
    const body = await redocBundle()
    return c.body(new Uint8Array(body), 200, {
      ...headers('text/javascript; charset=utf-8'),
      'cache-control': 'public, max-age=86400',
    })
  },
})
