import { BaseError } from '../../src/errors/index.js'

/** What a browser says about where a request comes from. */
export type RequestSite = { origin?: string; fetchSite?: string }

/**
 * Why a request is refused as sent from another site, or undefined when it is not. A browser
 * names the page that sent a POST in `Origin` (also across sites, also for the form posts and
 * no-cors fetches it sends without asking the server first); that must be `expected`, the origin
 * the dashboard is served at, exactly (`null`, from sandboxed frames and some redirects, is not).
 * A browser that sends no Origin may still send `Sec-Fetch-Site`: only `same-origin` and `none`
 * (typed into the address bar) pass. A request with neither is not a browser's (the CLI, curl, a
 * script), which cookies and the CSRF token already cover.
 */
export function crossSiteProblem(site: RequestSite, expected: string | undefined): string | undefined {
  if (site.origin !== undefined) {
    if (expected !== undefined && sameOrigin(site.origin, expected)) return undefined
    return `it comes from ${site.origin.slice(0, 100)}, not ${expected ?? "the daemon's own address"}`
  }
  const fetchSite = site.fetchSite?.trim().toLowerCase()
  if (fetchSite === undefined || fetchSite === 'same-origin' || fetchSite === 'none') return undefined
  return `the browser says it comes from another site (Sec-Fetch-Site: ${fetchSite.slice(0, 20)})`
}

/** Throws ORIGIN_REJECTED when `crossSiteProblem` finds one. */
export function refuseCrossSite(site: RequestSite, expected: string | undefined): void {
  const problem = crossSiteProblem(site, expected)
  if (problem)
    throw new BaseError(
      'ORIGIN_REJECTED',
      `refused: a sign-in or dashboard change is taken only from the dashboard's ` +
        `own page, and ${problem}; open the dashboard at ${expected ?? 'its address'}`,
    )
}

function sameOrigin(origin: string, expected: string): boolean {
  try {
    return new URL(origin).origin === new URL(expected).origin
  } catch {
    return false
  }
}
