import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { launchChromium } from './helpers/dashboard-browser.js'

/**
 * Issue 28 item 3: GET /api/docs renders the OpenAPI document in a real browser, with Redoc's
 * bundle served by the daemon (no CDN: the browser may reach nothing but the daemon) and under the
 * page's CSP, with no violation and no script error.
 */
let d: TestDaemon
let browser: Browser

beforeAll(async () => {
  d = await startTestDaemon()
  browser = await launchChromium()
}, 120_000)
afterAll(async () => {
  await browser?.close()
  await d?.close()
})

describe('GET /api/docs', () => {
  it('renders every route from the daemon alone, under its CSP', async () => {
    const page = await browser.newPage({ viewport: { width: 1300, height: 900 } })
    const problems: string[] = []
    const elsewhere: string[] = []
    page.on('pageerror', (e) => problems.push(e.message))
    page.on('console', (m) => void (/Content Security Policy|Refused to/i.test(m.text()) && problems.push(m.text())))
    const origin = new URL(d.urls.api).origin
    // Anything not from the daemon (a CDN, a font host) is refused and named.
    await page.route('**/*', (r) =>
      r.request().url().startsWith(origin) ||
      r.request().url().startsWith('blob:') ||
      r.request().url().startsWith('data:')
        ? r.continue()
        : (elsewhere.push(r.request().url()), r.abort()),
    )
    const res = await page.goto(`${d.urls.api}/api/docs`)
    expect(res!.headers()['content-security-policy']).toMatch(/script-src 'self';/)
    // Redoc's title and an operation from the route table, rendered from /api/openapi.json.
    await page.getByRole('heading', { name: /^parx/ }).first().waitFor({ timeout: 30_000 })
    await page.locator('h2', { hasText: 'xchain status (by orderId)' }).first().waitFor()
    if (process.env.PARX_DOCS_SCREENSHOT) await page.screenshot({ path: process.env.PARX_DOCS_SCREENSHOT })
    // Redoc's one foreign reference, its footer logo on cdn.redoc.ly, is refused by the CSP before
    // any request leaves (the image hides itself on error); nothing else is refused or fails.
    const logo = (p: string) => p.includes('https://cdn.redoc.ly/redoc/logo-mini.svg')
    expect(problems.filter((p) => !logo(p))).toEqual([])
    expect(elsewhere).toEqual([])
    await page.close()
  })

  it('serves the bundle from node_modules, cacheable, and the page without a CDN reference', async () => {
    const html = await d.raw('/api/docs')
    expect(html.status).toBe(200)
    expect(String(html.body)).not.toMatch(/https?:\/\//)
    const js = await fetch(`${d.urls.api}/api/docs/redoc.standalone.js`)
    expect(js.status).toBe(200)
    expect(js.headers.get('content-type')).toMatch(/javascript/)
    expect((await js.arrayBuffer()).byteLength).toBeGreaterThan(500_000)
  })
})
