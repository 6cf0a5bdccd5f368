import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

/**
 * Code points at the contract it implements as `docs/<page>.md "<section>"` (a heading, or a
 * paragraph's bold title). SPEC.md, which comments once cited by section number, is not in the
 * repository: a citation must name a section a reader can open, and one that drifts when a heading
 * is renamed is listed as `file: page "section"`.
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const tracked = (...globs: string[]): string[] =>
  execFileSync('git', ['ls-files', '--', ...globs], { cwd: root, encoding: 'utf8' })
    .split('\n')
    .filter(Boolean)

// This file's own examples are not citations; a file deleted and not yet committed is not read.
const sources = tracked('*.ts', '*.tsx', '*.md', '*.sol', '*.rs', '*.js').filter(
  (f) => f !== 'test/docs-citations.test.ts' && existsSync(join(root, f)),
)

/** What a citation may name on a page: each heading's text and each bold paragraph title, code marks dropped. */
function sectionsOf(text: string): string[] {
  const out: string[] = []
  for (const line of text.split('\n')) {
    const h = /^#{1,6} (.*)$/.exec(line)
    if (h) out.push(h[1]!.replace(/`/g, '').trim())
    const b = /^(?:- )?\*\*([^*]+?)\.?\*\*/.exec(line)
    if (b) out.push(b[1]!.replace(/`/g, '').trim())
  }
  return out
}

/** Every `docs/<page>.md "<section>"` in a file, a section broken over comment lines joined again. */
function citationsIn(text: string): { page: string; section: string }[] {
  return [...text.matchAll(/docs\/([a-z0-9-]+\.md) "([^"]{1,120})"/g)].map(([, page, section]) => ({
    page: page!,
    section: section!.replace(/\s*\n\s*(?:\*|\/\/)?\s*/g, ' ').trim(),
  }))
}

const cites = (section: string, sections: string[]): boolean =>
  sections.some((s) => s === section || s.startsWith(`${section} `) || s.startsWith(`${section}:`))

describe('citations of docs/ sections', () => {
  it('nothing cites SPEC by section number: the document is not in the repository', () => {
    const marker = /SPEC (?:§|\d)/ // "SPEC §2.7" or "SPEC 2.7"
    expect(sources.filter((f) => marker.test(readFileSync(join(root, f), 'utf8')))).toEqual([])
  })

  it('every docs/<page>.md "<section>" names a heading or bold paragraph title of that page', () => {
    const pages = new Map<string, string[]>()
    const broken: string[] = []
    for (const file of sources) {
      for (const { page, section } of citationsIn(readFileSync(join(root, file), 'utf8'))) {
        if (!pages.has(page)) pages.set(page, sectionsOf(readFileSync(join(root, 'docs', page), 'utf8')))
        if (!cites(section, pages.get(page)!)) broken.push(`${file}: ${page} "${section}"`)
      }
    }
    expect(broken).toEqual([])
  })

  it('reads headings and bold titles as a reader sees them, and citations across comment lines', () => {
    expect(
      sectionsOf(
        '## `GET /api/agents/me` — who am I\n**Routes.** text\n- **Partner API keys** (x): more\nplain **bold** text',
      ),
    ).toEqual(['GET /api/agents/me — who am I', 'Routes', 'Partner API keys'])
    expect(
      citationsIn('/** see docs/internals.md "Durable\n * transactions" and docs/hosting.md "The store" */'),
    ).toEqual([
      { page: 'internals.md', section: 'Durable transactions' },
      { page: 'hosting.md', section: 'The store' },
    ])
    expect(cites('GET /api/agents/me', ['GET /api/agents/me — who am I'])).toBe(true)
    expect(cites('Routes', ['Routes of the agent'])).toBe(true)
    expect(cites('Route', ['Routes'])).toBe(false)
  })
})
