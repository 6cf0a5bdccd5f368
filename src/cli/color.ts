/**
 * Colour for terminal output: on only when the stream is a terminal, never with NO_COLOR (any
 * non-empty value, https://no-color.org), `--no-color` or TERM=dumb; FORCE_COLOR turns it on elsewhere.
 * Our own few escapes instead of chalk, whose detection ignores NO_COLOR.
 */
export function colorEnabled(opts: { env: NodeJS.ProcessEnv; isTTY: boolean; flag?: boolean }): boolean {
  if (opts.flag === false || opts.env.NO_COLOR) return false
  const force = opts.env.FORCE_COLOR
  if (force !== undefined && force !== '' ) return force !== '0' && force !== 'false'
  return opts.isTTY && opts.env.TERM !== 'dumb'
}

export type Palette = Record<'red' | 'green' | 'yellow' | 'dim' | 'bold', (s: string) => string>

export function palette(enabled: boolean): Palette {
  const wrap = (open: number, close: number) => (s: string) => (enabled ? `\x1b[${open}m${s}\x1b[${close}m` : s)
  return { red: wrap(31, 39), green: wrap(32, 39), yellow: wrap(33, 39), dim: wrap(2, 22), bold: wrap(1, 22) }
}
