import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

const root = fileURLToPath(new URL('..', import.meta.url))

/** The exported functions of a file with their length in lines. */
function functionLengths(file: string): Record<string, number> {
  const text = readFileSync(join(root, file), 'utf8')
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
  const out: Record<string, number> = {}
  for (const node of source.statements) {
    if (!ts.isFunctionDeclaration(node) || !node.name || !node.body) continue
    const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line
    const last = source.getLineAndCharacterOfPosition(node.end).line
    out[node.name.text] = last - first + 1
  }
  return out
}

// Issue 42: the composition root is one short function per surface (daemon/compose/), and
// startDaemon calls them in order and owns the start and the stop (docs/development.md "One door").
describe('the composition root', () => {
  // Lengths as Biome formats the tree (a long call takes a line per argument); startDaemon was 284 lines before the split.
  it('keeps startDaemon short', () => {
    const lengths = functionLengths('daemon/main.ts')
    expect(lengths.startDaemon).toBeDefined()
    expect(
      lengths.startDaemon,
      'build a surface in a compose function of daemon/compose/, not in startDaemon',
    ).toBeLessThanOrEqual(120)
  })

  it('builds each surface in a short function of daemon/compose/', () => {
    const files = readdirSync(join(root, 'daemon/compose')).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
    const long = files.flatMap((f) =>
      Object.entries(functionLengths(`daemon/compose/${f}`))
        .filter(([, n]) => n > 120)
        .map(([name, n]) => `${f} ${name}: ${n} lines`),
    )
    expect(files.length).toBeGreaterThan(5)
    expect(long).toEqual([])
  })
})
