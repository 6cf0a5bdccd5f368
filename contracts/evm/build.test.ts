import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { artifactsDir, compileAll } from './compile.js'

const STALE = 'committed EVM artifacts are stale: run npm run build:contracts'

describe('contracts/evm artifacts', () => {
  it('match a fresh compile byte for byte', () => {
    const { files } = compileAll()
    const committed = readdirSync(artifactsDir)
      .filter((f) => f.endsWith('.ts'))
      .sort()
    expect(committed, STALE).toEqual(Object.keys(files).sort())
    for (const [name, contents] of Object.entries(files)) {
      // A boolean, not toEqual on the text: a 30 kB string diff would bury the message that matters.
      const same = readFileSync(join(artifactsDir, name), 'utf8') === contents
      expect(same, `${name}: ${STALE}`).toBe(true)
    }
  }, 180_000)
})
