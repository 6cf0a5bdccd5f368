import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const root = fileURLToPath(new URL('..', import.meta.url))

/**
 * The dashboard's script is built, not written by hand: scripts/build.js (run by `npm install`
 * through `prepare`, and by vitest's globalSetup) bundles daemon/dashboard/client/ into
 * dist/dashboard/app.js, and the package ships it.
 */
describe('the dashboard script asset', () => {
  it('is bundled into dist/dashboard/app.js, self-contained (no import, no zod, nothing fetched from elsewhere)', () => {
    const file = `${root}dist/dashboard/app.js`
    expect(existsSync(file)).toBe(true)
    const js = readFileSync(file, 'utf8')
    // Booleans, not the 20 kB file, in a failure's message.
    expect(js.includes('/api/agents/:id/spending'), 'the chart route').toBe(true)
    expect(/\bimport\s*[({"'`]|\brequire\(/.test(js), 'an import or require left in').toBe(false)
    expect(js.includes('ZodError'), 'zod bundled (only types may come from src/sdk/)').toBe(false)
    expect(/https?:\/\/(?!www\.w3\.org\/2000\/svg)/.test(js), 'a URL other than the SVG namespace').toBe(false)
  })

  it('is in the published package', () => {
    const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    })
    const files = (JSON.parse(out) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path)
    expect(files).toContain('dist/dashboard/app.js')
  }, 60_000)
})
