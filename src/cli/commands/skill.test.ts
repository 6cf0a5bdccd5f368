import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Command } from 'commander'
import { describe, expect, it } from 'vitest'
import { packageRoot } from '../../config/package-root.js'
import { exitCodes } from '../../errors/exit-codes.js'
import { createContext } from '../context.js'
import { buildProgram } from '../program.js'
import { run, skillPath } from './skill.js'

const program = buildProgram({ stdout: () => {}, stderr: () => {}, env: {} })
const text = readFileSync(join(packageRoot(), 'skills', 'parx', 'SKILL.md'), 'utf8')

/** Words of a shell command line, single and double quotes kept together (what the skill's examples use). */
const words = (line: string) => [...line.matchAll(/'[^']*'|"[^"]*"|\S+/g)].map((m) => m[0])

/**
 * Walks `parx a b --flag value ...` down the command tree as commander would: the command it names,
 * and every flag that none of the command's or the global options declare.
 */
function resolve(line: string): { path: string[]; unknown: string[] } {
  let cmd: Command = program
  const path: string[] = []
  const unknown: string[] = []
  const ws = words(line).slice(1)
  let args = false
  for (let i = 0; i < ws.length; i++) {
    const w = ws[i]!
    if (w.startsWith('-')) {
      const flag = w.split('=')[0]!
      const opt = [...cmd.options, ...program.options].find((o) => o.long === flag || o.short === flag)
      if (!opt && flag !== '--help') unknown.push(`${path.join(' ')} ${flag}`)
      if (opt && (opt.required || opt.optional) && !w.includes('=')) i++
      continue
    }
    const sub = args ? undefined : cmd.commands.find((c) => c.name() === w)
    if (sub) (cmd = sub), path.push(w)
    else args = true
  }
  return { path, unknown }
}

describe('the agent skill (skills/parx/SKILL.md)', () => {
  it('has the front matter agent skills read: name (its folder) and a description', () => {
    const fm = /^---\n([\s\S]*?)\n---\n/.exec(text)?.[1]
    expect(fm).toBeDefined()
    const field = (k: string) => new RegExp(`^${k}: (.+)$`, 'm').exec(fm!)?.[1]
    expect(field('name')).toBe('parx')
    expect(field('description')!.length).toBeGreaterThan(40)
    expect(field('description')!.length).toBeLessThanOrEqual(1024)
  })

  it('mentions only commands and flags that `parx --help` has', () => {
    const lines = [...text.matchAll(/`(parx [^`]+)`/g)].map((m) => m[1]!)
    expect(lines.length).toBeGreaterThan(15)
    const problems: string[] = []
    for (const line of lines) {
      const r = resolve(line)
      if (!r.path.length) problems.push(`${line}: no such command`)
      problems.push(...r.unknown.map((u) => `${line}: no flag ${u}`))
    }
    expect(problems).toEqual([])
    // The check itself catches a drift.
    expect(resolve('parx pay --no-such-flag x').unknown).toEqual(['pay --no-such-flag'])
    expect(resolve('parx payy https://x').path).toEqual([])
    expect(resolve('parx agent limits --daily 5 -o json')).toEqual({ path: ['agent', 'limits'], unknown: [] })
  })

  it('lists every exit code scripts branch on, and no other', () => {
    const table = [...text.matchAll(/^\| (\d+) \|/gm)].map((m) => Number(m[1]))
    expect(table).toEqual(Object.values(exitCodes))
  })

  it('`parx skill` prints it, `--path` where it is; package.json ships it', async () => {
    const out: string[] = []
    const ctx = (output: 'text' | 'json') =>
      createContext({ env: {}, stdout: (s) => void out.push(s), stderr: () => {} }, { output })
    await run({}, ctx('text'))
    expect(out.join('\n')).toBe(text.trimEnd())
    out.length = 0
    await run({ path: true }, ctx('text'))
    expect(out).toEqual([await skillPath()])
    expect(existsSync(out[0]!)).toBe(true)
    out.length = 0
    await run({}, ctx('json'))
    expect(JSON.parse(out[0]!)).toEqual({ path: await skillPath(), skill: text })
    const files: string[] = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')).files
    expect(files.some((f) => f === 'skills' || f === 'skills/parx/SKILL.md' || f === 'skills/parx')).toBe(true)
  })
})
