import { createRequire } from 'node:module'
import type { ChalkInstance } from 'chalk'

/**
 * Colour for terminal output: on only when the stream is a terminal, never with NO_COLOR (any
 * non-empty value, https://no-color.org), `--no-color` or TERM=dumb; FORCE_COLOR turns it on elsewhere.
 * The decision is ours (chalk's own detection ignores NO_COLOR); chalk draws at the level we give it.
 */
export function colorEnabled(opts: { env: NodeJS.ProcessEnv; isTTY: boolean; flag?: boolean }): boolean {
  if (opts.flag === false || opts.env.NO_COLOR) return false
  const force = opts.env.FORCE_COLOR
  if (force !== undefined && force !== '') return force !== '0' && force !== 'false'
  return opts.isTTY && opts.env.TERM !== 'dumb'
}

export type Palette = Record<'red' | 'green' | 'yellow' | 'dim' | 'bold', (s: string) => string>

const STYLES = ['red', 'green', 'yellow', 'dim', 'bold'] as const

/**
 * chalk loads on the first coloured string, not at start-up: most calls (scripts, `--output json`,
 * pipes) print no colour, and the CLI's start-up budget is checked by test/cli-build.test.ts.
 */
let chalk: ChalkInstance | undefined
const colored = (): ChalkInstance => {
  if (!chalk) {
    const { Chalk } = createRequire(import.meta.url)('chalk') as typeof import('chalk')
    chalk = new Chalk({ level: 1 })
  }
  return chalk
}

export function palette(enabled: boolean): Palette {
  const style = (name: (typeof STYLES)[number]) => (s: string) => (enabled ? colored()[name](s) : s)
  return Object.fromEntries(STYLES.map((n) => [n, style(n)])) as Palette
}
