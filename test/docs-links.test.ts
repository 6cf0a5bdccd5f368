import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

/**
 * The README is the front door and docs/ the reference: sections moved between them, so every
 * relative link and `#anchor` of README.md and docs/*.md must still land on a file and a heading
 * (GitHub's slugs). A broken one is listed as `file: link`.
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const docs = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
]

/** Lines outside fenced code blocks, with their text. */
function prose(text: string): string[] {
  let fence = false
  return text.split('\n').filter((l) => {
    if (l.startsWith('```')) fence = !fence
    return !fence && !l.startsWith('```')
  })
}

/** GitHub's anchor for a heading: the rendered text lowercased, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>()
  const out = new Set<string>()
  for (const line of prose(text)) {
    const m = /^#{1,6} (.*)$/.exec(line)
    if (!m) continue
    const rendered = m[1]!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    const slug = rendered
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
      .replace(/\s/g, '-')
    const n = seen.get(slug) ?? 0
    seen.set(slug, n + 1)
    out.add(n === 0 ? slug : `${slug}-${n}`)
  }
  return out
}

function brokenLinks(file: string): string[] {
  const broken: string[] = []
  const here = dirname(join(root, file))
  for (const line of prose(readFileSync(join(root, file), 'utf8'))) {
    for (const [, target] of line.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target!)) continue // http:, https:, mailto:
      const [path, anchor] = target!.split('#') as [string, string | undefined]
      const full = path === '' ? join(root, file) : join(here, path)
      if (!existsSync(full)) {
        broken.push(`${file}: ${target} (no such file)`)
        continue
      }
      if (anchor === undefined || statSync(full).isDirectory() || !full.endsWith('.md')) continue
      if (!anchorsOf(readFileSync(full, 'utf8')).has(anchor))
        broken.push(`${file}: ${target} (no heading #${anchor} in ${relative(root, full)})`)
    }
  }
  return broken
}

describe('README and docs/ links', () => {
  it('every relative link and anchor resolves', () => {
    expect(docs.flatMap(brokenLinks)).toEqual([])
  })

  it("slugs headings as GitHub does, so the check means what a reader's click does", () => {
    expect([
      ...anchorsOf(
        '# Hosted: replicas on PostgreSQL\n## `GET /api/agents/:id/payments` — payment history\n## Swaps (SDK)\n## Swaps (SDK)\n```\n# not a heading\n```',
      ),
    ]).toEqual([
      'hosted-replicas-on-postgresql',
      'get-apiagentsidpayments--payment-history',
      'swaps-sdk',
      'swaps-sdk-1',
    ])
  })

  it('the README stays a front door: a few hundred lines, the reference in docs/', () => {
    expect(readFileSync(join(root, 'README.md'), 'utf8').split('\n').length).toBeLessThan(320)
  })
})
