import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

/**
 * Biome wraps code at 120 characters but never splits a string, a comment or an import path, so
 * a long message or SQL line would pass `npm run lint`. This holds the rest of the rule for the
 * code parx ships and runs: the product (src/, daemon/, bin/, scripts/, contracts/ without the
 * generated artifacts) and the examples the docs quote. Tests, test helpers and benchmarks are not
 * held to it.
 */
const MAX = 120
const root = join(import.meta.dirname, '..')
const product = /^(src|daemon|bin|scripts|contracts|examples)\/.*\.(ts|js|mjs|cjs)$/
const exempt = [/\.test\.ts$/, /\.d\.ts$/, /^contracts\/evm\/artifacts\//]

function longLines(files: { path: string; text: string }[]): string[] {
  return files.flatMap(({ path, text }) =>
    text.split('\n').flatMap((line, i) => (line.length > MAX ? [`${path}:${i + 1} (${line.length})`] : [])),
  )
}

describe('line width', () => {
  it('finds a line over 120 characters, and only such a line', () => {
    const fits = 'x'.repeat(MAX)
    expect(longLines([{ path: 'a.ts', text: `${fits}\n${fits}x\n` }])).toEqual([`a.ts:2 (${MAX + 1})`])
  })

  it('no product line is over 120 characters', () => {
    const tracked = execFileSync('git', ['ls-files'], { cwd: root, encoding: 'utf8' }).split('\n')
    const files = tracked
      .filter((p) => product.test(p) && !exempt.some((e) => e.test(p)))
      .map((path) => ({ path, text: readFileSync(join(root, path), 'utf8') }))
    expect(files.length).toBeGreaterThan(800)
    expect(longLines(files)).toEqual([])
  })
})
