import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { posix } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import ts from 'typescript'

/*
 * The import graph of the product code (src/ and daemon/, tests left out), read from the sources
 * with TypeScript's own import scanner, so `import type` and lazy `import()` count as much as value
 * imports: a circle closed by a type or a lazy import is still two files that cannot be read apart.
 * test/import-graph.test.ts holds the rules to it; run this file to print the measures as JSON
 * (issue 42's "before/after"): npx tsx test/helpers/import-graph.ts [checkout]
 */

export type EdgeKind = 'value' | 'type' | 'dynamic'
export type Edge = { from: string; to: string; line: number; kind: EdgeKind }

/** An arrow the layers forbid: `from` files may not import `to` files. */
export type LayerRule = { name: string; from: RegExp; to: RegExp; message: string }

export const layerRules: LayerRule[] = [
  {
    name: 'low layers import no CLI or daemon',
    from: /^src\/(sdk|config|errors|networks)\//,
    to: /^(src\/cli|daemon)\//,
    message:
      'src/sdk, src/config, src/errors and src/networks sit below the CLI and the daemon: move what they need down (docs/development.md "One door")',
  },
  {
    name: 'the daemon imports no CLI',
    from: /^daemon\//,
    to: /^src\/cli\//,
    message:
      'the daemon never imports src/cli: move the shared piece to src/config (e.g. src/config/package-root.ts) or lower',
  },
  {
    name: 'src reaches the daemon through daemon/entry.ts',
    from: /^src\//,
    to: /^daemon\/(?!entry\.ts$)/,
    message:
      'src/ reaches daemon/ only through daemon/entry.ts: export what the CLI needs there (lazily, as its other functions do)',
  },
]

/** The product files of a checkout: .ts/.tsx under src/ and daemon/ (tracked, or new and not ignored), tests and declarations left out. */
export function productFiles(root: string): string[] {
  return execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '--', 'src', 'daemon'], {
    cwd: root,
    encoding: 'utf8',
  })
    .split('\n')
    .filter(
      (f) => /\.tsx?$/.test(f) && !/\.test\.tsx?$/.test(f) && !f.endsWith('.d.ts') && existsSync(posix.join(root, f)),
    )
}

/** Every relative import between product files (package imports and files outside src/ and daemon/ are not arrows of this graph). */
export function importEdges(root: string): Edge[] {
  const files = productFiles(root)
  const known = new Set(files)
  const edges: Edge[] = []
  for (const from of files) {
    const text = readFileSync(posix.join(root, from), 'utf8')
    for (const ref of ts.preProcessFile(text, true, true).importedFiles) {
      if (!ref.fileName.startsWith('.')) continue
      const to = resolveSpecifier(known, from, ref.fileName)
      if (!to) continue
      edges.push({ from, to, line: text.slice(0, ref.pos).split('\n').length, kind: kindAt(text, ref.pos) })
    }
  }
  return edges
}

/** `./x.js` is `./x.ts` (or .tsx) under NodeNext; `./dir` is `./dir/index.ts`. */
function resolveSpecifier(known: Set<string>, from: string, spec: string): string | undefined {
  const p = posix.normalize(posix.join(posix.dirname(from), spec))
  const stem = p.replace(/\.(js|jsx|ts|tsx)$/, '')
  return [p, `${stem}.ts`, `${stem}.tsx`, `${p}/index.ts`, `${p}/index.tsx`].find((c) => known.has(c))
}

/** Whether the import whose specifier starts at `pos` is a value import, a type-only one or a lazy `import()`. */
function kindAt(text: string, pos: number): EdgeKind {
  const before = text.slice(0, pos)
  if (/\bimport\s*\(\s*$/.test(before)) return /\btypeof\s+import\s*\(\s*$/.test(before) ? 'type' : 'dynamic'
  const start = Math.max(before.lastIndexOf('import'), before.lastIndexOf('export'))
  const statement = before.slice(start)
  if (/^(import|export)\s+type\b/.test(statement)) return 'type'
  const names = /^(?:import|export)\s*\{([^}]*)\}\s*from\s*$/.exec(statement)?.[1]
  const bindings = names
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  return bindings?.length && bindings.every((b) => b.startsWith('type ')) ? 'type' : 'value'
}

/** The edges breaking a rule. */
export const breaking = (edges: Edge[], rule: LayerRule) =>
  edges.filter((e) => rule.from.test(e.from) && rule.to.test(e.to))

/** Import circles: the strongly connected components of two files or more (Tarjan), each sorted. */
export function circles(edges: Edge[]): string[][] {
  const next = new Map<string, string[]>()
  for (const e of edges) next.set(e.from, [...(next.get(e.from) ?? []), e.to])
  let counter = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const found: string[][] = []
  const visit = (v: string) => {
    index.set(v, counter)
    low.set(v, counter++)
    stack.push(v)
    onStack.add(v)
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!))
    }
    if (low.get(v) !== index.get(v)) return
    const component: string[] = []
    let w: string
    do {
      w = stack.pop()!
      onStack.delete(w)
      component.push(w)
    } while (w !== v)
    if (component.length > 1 || next.get(v)?.includes(v)) found.push(component.sort())
  }
  for (const v of next.keys()) if (!index.has(v)) visit(v)
  return found
}

/** A circle file by file, with the arrows that close it, for a failure message. */
export const describeCircle = (edges: Edge[], files: string[]) =>
  edges
    .filter((e) => files.includes(e.from) && files.includes(e.to))
    .map((e) => `  ${e.from}:${e.line} -> ${e.to} (${e.kind})`)
    .join('\n')

/** The measures quoted in issue 42's note: edges, arrows breaking each rule, circles. */
export function measure(root: string) {
  const edges = importEdges(root)
  const found = circles(edges)
  return {
    files: productFiles(root).length,
    edges: edges.length,
    arrows: Object.fromEntries(layerRules.map((r) => [r.name, breaking(edges, r).length])),
    circles: found.length,
    circleFiles: found,
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const root = process.argv[2] ?? fileURLToPath(new URL('../..', import.meta.url))
  console.log(JSON.stringify(measure(root), null, 2))
}
