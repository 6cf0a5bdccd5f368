import { Chalk } from 'chalk'

/**
 * Colour for terminal output: on only when the stream is a terminal, never with NO_COLOR (any
 * non-empty value, https://no-color.org), `--no-color` or TERM=dumb; FORCE_COLOR turns it on elsewhere.
 * The decision is ours (chalk's own detection ignores NO_COLOR); chalk draws at the level we give it.
 */
export function colorEnabled(opts: { env: NodeJS.ProcessEnv; isTTY: boolean; flag?: boolean }): boolean {
  if (opts.flag === false || opts.env.NO_COLOR) return false
  const force = opts.env.FORCE_COLOR
  if (force !== undefined && force !== '' ) return force !== '0' && force !== 'false'
  return opts.isTTY && opts.env.TERM !== 'dumb'
}

export type Palette = Record<'red' | 'green' | 'yellow' | 'dim' | 'bold', (s: string) => string>

export function palette(enabled: boolean): Palette {
  const c = new Chalk({ level: enabled ? 1 : 0 })
  return { red: c.red, green: c.green, yellow: c.yellow, dim: c.dim, bold: c.bold }
}
