import type { Context } from 'hono'
import { dashboardPaths } from '../../../../src/sdk/dashboard/index.js'
import { dashboardCss } from '../../../dashboard/page/css.js'
import { dashboardHtml } from '../../../dashboard/page/html.js'
import { dashboardJs } from '../../../dashboard/page/script.js'
import { route } from '../../route.js'

/** Same-origin only: no inline script, no CDN, no framing (clickjacking a key's delete button). */
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
  "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

const asset = (c: Context, body: string, type: string) =>
  c.body(body, 200, {
    'content-type': type,
    'content-security-policy': CSP,
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'cache-control': 'no-cache',
    'referrer-policy': 'no-referrer',
  })

/** The dashboard page at {dashboard_url}: three static files, served by the daemon itself. */
export const dashboardPage = route({
  method: 'GET',
  path: dashboardPaths.page,
  auth: 'open',
  surface: 'dashboard',
  contentType: 'text/html',
  handler: (c) => asset(c, dashboardHtml, 'text/html; charset=utf-8'),
})
export const dashboardScript = route({
  method: 'GET',
  path: dashboardPaths.script,
  auth: 'open',
  surface: 'dashboard',
  contentType: 'text/javascript',
  handler: (c) => asset(c, dashboardJs(), 'text/javascript; charset=utf-8'),
})
/** `/dashboard/` (as people type it) goes to the page. */
export const dashboardSlash = route({
  method: 'GET',
  path: `${dashboardPaths.page}/`,
  auth: 'open',
  surface: 'dashboard',
  handler: (c) => c.redirect(dashboardPaths.page, 308),
})
export const dashboardStyle = route({
  method: 'GET',
  path: dashboardPaths.style,
  auth: 'open',
  surface: 'dashboard',
  contentType: 'text/css',
  handler: (c) => asset(c, dashboardCss, 'text/css; charset=utf-8'),
})
