import { describe, expect, it } from 'vitest'
import { fillPath, platformRoutePaths } from './route-paths.js'
import { platformRoutes } from './routes.js'

describe('platformRoutePaths', () => {
  it('is the contract of routes.ts without its schemas: same names, methods, paths and auth', () => {
    const fromContract = Object.fromEntries(
      Object.entries(platformRoutes).map(([n, r]) => [n, { method: r.method, path: r.path, auth: r.auth }]),
    )
    expect(platformRoutePaths).toEqual(fromContract)
  })

  it('fills path parameters, encoded, and refuses a missing one', () => {
    expect(fillPath('/api/agents/:id/keys/:keyId', { id: 'a b', keyId: 'k' })).toBe('/api/agents/a%20b/keys/k')
    expect(() => fillPath('/api/agents/:id', {})).toThrow(/id/)
  })
})
