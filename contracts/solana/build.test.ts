import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { buildProgram, hasClang, PROGRAMS, programPath } from './compile.js'

const STALE = 'committed Solana programs are stale: run npm run build:programs'
const clang = hasClang()
if (!clang)
  console.warn(
    'contracts/solana/build.test.ts: clang-19 is not installed, so the committed .so files are NOT checked against a rebuild (apt-get install -y clang-19)',
  )

describe('contracts/solana programs', () => {
  it.skipIf(!clang)(
    'rebuild byte for byte from source with clang-19 and our linker',
    () => {
      for (const name of PROGRAMS) {
        const same = Buffer.from(buildProgram(name)).equals(readFileSync(programPath(name)))
        expect(same, `${name}.so: ${STALE}`).toBe(true)
      }
    },
    120_000,
  )
})
