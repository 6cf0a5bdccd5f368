import { existsSync, readdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { describe, expect, inject, it } from 'vitest'
import { packedParx } from './pack.js'

describe("the run's one npm pack", () => {
  it("packs once into the run's directory, however many callers ask at the same time", {
    timeout: 300_000,
  }, async () => {
    const [a, b] = await Promise.all([packedParx(), packedParx()])
    expect(b).toEqual(a)
    expect(dirname(a.tarball)).toBe(inject('parxPackDir'))
    expect(existsSync(a.tarball)).toBe(true)
    expect(a.files).toContain('dist/parx.js')
    expect(readdirSync(dirname(a.tarball)).filter((f) => f.endsWith('.tgz'))).toHaveLength(1)
    expect(await packedParx()).toEqual(a)
  })
})
