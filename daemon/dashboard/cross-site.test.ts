import { describe, expect, it } from 'vitest'
import { crossSiteProblem } from './cross-site.js'

const OWN = 'https://pay.example.com'

describe('crossSiteProblem', () => {
  it("passes the dashboard's own Origin (however spelt), and a request no browser sent", () => {
    for (const origin of [OWN, 'https://PAY.example.com', 'https://pay.example.com:443'])
      expect(crossSiteProblem({ origin }, OWN), origin).toBeUndefined()
    expect(crossSiteProblem({}, OWN)).toBeUndefined()
    expect(crossSiteProblem({ fetchSite: 'same-origin' }, OWN)).toBeUndefined()
    expect(crossSiteProblem({ fetchSite: 'none' }, OWN)).toBeUndefined()
  })

  it('refuses any other Origin, whatever Sec-Fetch-Site claims beside it', () => {
    for (const origin of [
      'https://evil.example',
      'http://pay.example.com',
      'https://pay.example.com:8443',
      'https://pay.example.com.evil.example',
      'null',
      '',
      'not a url',
    ]) {
      expect(crossSiteProblem({ origin, fetchSite: 'same-origin' }, OWN), origin).toMatch(/comes from/)
    }
  })

  it('without Origin, refuses Sec-Fetch-Site other than same-origin or none', () => {
    for (const fetchSite of ['cross-site', 'same-site', 'Cross-Site', 'x'])
      expect(crossSiteProblem({ fetchSite }, OWN), fetchSite).toMatch(/another site/)
  })

  it('with no origin of its own (a DNS name on a daemon without a public origin), refuses every Origin', () => {
    expect(crossSiteProblem({ origin: 'http://evil.example:8420' }, undefined)).toMatch(/not the daemon's own address/)
    expect(crossSiteProblem({}, undefined)).toBeUndefined()
  })
})
