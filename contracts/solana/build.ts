// The `npm run build:programs` script: compiles and links the Solana programs and rewrites
// contracts/solana/build/*.so, which are committed so the daemon never needs clang.
// A script only: importing it writes the files. Tests import ./compile.ts instead.
import { mkdirSync, writeFileSync } from 'node:fs'
import { buildDir, buildProgram, PROGRAMS, programPath } from './compile.js'

mkdirSync(buildDir, { recursive: true })
for (const name of PROGRAMS) {
  const so = buildProgram(name)
  writeFileSync(programPath(name), so)
  console.log(`wrote ${programPath(name)} (${so.length} bytes)`)
}
