import { describe, expect, it } from 'vitest'
import { colorEnabled, palette } from './color.js'
import { startSpinner } from './spinner.js'

const stream = (isTTY: boolean, columns: number) => {
  const writes: string[] = []
  return { writes, isTTY, columns, write: (s: string) => void writes.push(s) }
}

describe('spinner', () => {
  it('draws bounded frames on a terminal with a width', () => {
    const s = stream(true, 20)
    const sp = startSpinner('starting a rather long step name here', { stream: s, enabled: true })
    sp.succeed('ready')
    expect(s.writes[0]).toMatch(/^\r. starting a rathe\x1b\[K$/)
    expect(s.writes.at(-1)).toBe('✔ ready\n')
  })

  it('writes no cursor codes on a zero-width terminal or a pipe, only the final line', () => {
    for (const s of [stream(true, 0), stream(false, 80)]) {
      const sp = startSpinner('starting', { stream: s, enabled: true })
      sp.update('deploying')
      sp.fail('did not start')
      expect(s.writes).toEqual(['✖ did not start\n'])
    }
  })
})

describe('colour', () => {
  it('only on a terminal, never with NO_COLOR or --no-color; FORCE_COLOR forces it', () => {
    expect(colorEnabled({ env: {}, isTTY: true })).toBe(true)
    expect(colorEnabled({ env: {}, isTTY: false })).toBe(false)
    expect(colorEnabled({ env: { NO_COLOR: '1' }, isTTY: true })).toBe(false)
    expect(colorEnabled({ env: {}, isTTY: true, flag: false })).toBe(false)
    expect(colorEnabled({ env: { TERM: 'dumb' }, isTTY: true })).toBe(false)
    expect(colorEnabled({ env: { FORCE_COLOR: '1' }, isTTY: false })).toBe(true)
    expect(colorEnabled({ env: { FORCE_COLOR: '1', NO_COLOR: '1' }, isTTY: true })).toBe(false)
    expect(palette(false).red('x')).toBe('x')
    expect(palette(true).red('x')).toBe('\x1b[31mx\x1b[39m')
  })
})
