import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { breaking, circles, describeCircle, importEdges, layerRules } from './helpers/import-graph.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const edges = importEdges(root)

// The layers of docs/development.md "One door", held to the sources (type-only and lazy imports included).
describe('the import graph of src/ and daemon/', () => {
  it('reads the imports it checks', () => {
    // A scanner that found nothing would pass every rule below.
    expect(
      edges.some((e) => e.from === 'src/cli/commands/serve.ts' && e.to === 'daemon/entry.ts' && e.kind === 'dynamic'),
    ).toBe(true)
    expect(edges.some((e) => e.from === 'daemon/entry.ts' && e.to === 'daemon/main.ts' && e.kind === 'type')).toBe(true)
  })

  for (const rule of layerRules) {
    it(rule.name, () => {
      const bad = breaking(edges, rule).map((e) => `${e.from}:${e.line} -> ${e.to} (${e.kind})`)
      expect(bad, `${rule.message}\n${bad.join('\n')}`).toEqual([])
    })
  }

  it('has no import circles, counting type-only and lazy imports', () => {
    const found = circles(edges)
    const text = found.map((c, i) => `circle ${i + 1}:\n${describeCircle(edges, c)}`).join('\n')
    expect(
      found.length,
      `move the shared type down to the lower file (or a types.ts beside it), or pass the value in\n${text}`,
    ).toBe(0)
  })
})
