import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { errorCodes } from '../../errors/codes.js'
import { PAID_ENDPOINT_PATH, platformRoutes } from './routes.js'

const doc = readFileSync(new URL('../../../docs/platform-api.md', import.meta.url), 'utf8')

describe('docs/platform-api.md', () => {
  it('documents every route of the contract by method and path', () => {
    for (const [name, r] of Object.entries(platformRoutes)) {
      const paths =
        doc.match(new RegExp(`\`${r.method} ${r.path.replace(/[/:]/g, (c) => `\\${c}`)}\``)) ??
        doc.match(new RegExp(`\`${r.method} [^\`]*${r.path.replace(/[/:]/g, (c) => `\\${c}`)}\``))
      expect(paths, `${name}: ${r.method} ${r.path}`).not.toBeNull()
    }
    expect(doc).toContain(PAID_ENDPOINT_PATH)
  })

  it('lists each error code a route declares', () => {
    for (const r of Object.values(platformRoutes)) {
      for (const code of r.errors) {
        expect(code in errorCodes, code).toBe(true)
        expect(doc, code).toContain(`\`${code}\``)
      }
    }
  })
})
