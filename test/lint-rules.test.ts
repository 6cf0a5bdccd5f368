import { execFileSync } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'

// The repository's own biome.jsonc and GritQL plugin, run by the pinned Biome on a small project of
// samples: what `npm run lint` refuses in the tree, it must refuse here, and nothing more.
const root = join(import.meta.dirname, '..')
const biome = createRequire(import.meta.url).resolve('@biomejs/biome/bin/biome')
const project = mkdtempSync(join(tmpdir(), 'parx-lint-'))
afterAll(() => rmSync(project, { recursive: true, force: true }))

const samples: Record<string, string> = {
  'src/bare.ts': `export function thrown(): never {
  throw new Error('no code')
}
export const called = () => Error('called without new')
export function kept(): never {
  // biome-ignore lint/plugin/no-bare-error: an invariant no caller can reach
  throw new Error('kept, saying why')
}
export class Coded extends Error {}
export const coded = () => new Coded('a class of the family')
export const typed = () => new TypeError('not the bare Error')
`,
  // Tests, helpers and benchmarks may throw plain Errors.
  'src/bare.test.ts': `throw new Error('fine in a unit test')\n`,
  'test/helper.ts': `throw new Error('fine in a test helper')\n`,
  'bench/run.ts': `throw new Error('fine in a benchmark')\n`,
  'daemon/promises.ts': `import { readFileSync } from 'node:fs'
async function save(): Promise<void> {}
export function floating(): void {
  save()
}
export function handed(): Promise<void> {
  return save()
}
export function fireAndForget(): void {
  void save()
}
export function misused(p: Promise<void> | undefined): boolean {
  if (p) return true
  return false
}
export function unused(): void {
  const left = 1
}
export function idioms(xs: number[], seen: number[]): number {
  const first = xs[0]!
  return (seen.push(first), first)
}
`,
}

function lint(): string[] {
  mkdirSync(join(project, 'lint'), { recursive: true })
  copyFileSync(join(root, 'biome.jsonc'), join(project, 'biome.jsonc'))
  copyFileSync(join(root, '.gitignore'), join(project, '.gitignore'))
  copyFileSync(join(root, 'lint/no-bare-error.grit'), join(project, 'lint/no-bare-error.grit'))
  for (const [path, text] of Object.entries(samples)) {
    mkdirSync(dirname(join(project, path)), { recursive: true })
    writeFileSync(join(project, path), text)
  }
  let out: string
  try {
    out = execFileSync(
      process.execPath,
      [biome, 'lint', '--reporter=json', '--colors=off', '--max-diagnostics=none', '.'],
      { cwd: project, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] },
    )
  } catch (e) {
    out = (e as { stdout: string }).stdout // findings exit 1; the report is still on stdout
  }
  const report = JSON.parse(out) as {
    diagnostics: Array<{ category: string; location: { path: string; start: { line: number } } }>
  }
  return report.diagnostics.map((d) => `${d.location.path}:${d.location.start.line} ${d.category}`).sort()
}

describe('biome.jsonc and lint/no-bare-error.grit', () => {
  it('refuse bare Errors in product code, floating and misused promises, unused code; nothing else', () => {
    expect(lint()).toEqual([
      'daemon/promises.ts:1 lint/correctness/noUnusedImports',
      'daemon/promises.ts:13 lint/nursery/noMisusedPromises',
      'daemon/promises.ts:17 lint/correctness/noUnusedVariables',
      'daemon/promises.ts:4 lint/nursery/noFloatingPromises',
      'src/bare.ts:2 plugin',
      'src/bare.ts:4 plugin',
    ])
  })

  it('run in npm test before vitest, so CI stops on a finding', () => {
    const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>
    }
    expect(scripts.test).toMatch(/&& npm run lint && vitest run$/)
    expect(scripts.lint).toMatch(/^biome (lint|ci) --error-on-warnings \.$/)
  })
})
