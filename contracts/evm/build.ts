// The `npm run build:contracts` script: recompiles the EVM contracts and rewrites
// contracts/evm/artifacts/, which are committed so the daemon never needs solc or devDependencies.
// A script only: importing it writes the files. Tests and tools import ./compile.ts instead
// (bin/run-ts.js leaves no trace in process.argv by which a main-module guard could tell).
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { artifactsDir, compileAll } from './compile.js'

const { files, warnings } = compileAll()
for (const w of warnings) console.warn(w)
mkdirSync(artifactsDir, { recursive: true })
// A contract removed from src/ must not leave a module behind for the daemon to import.
for (const old of readdirSync(artifactsDir)) {
  if (old.endsWith('.ts') && !(old in files)) rmSync(join(artifactsDir, old))
}
for (const [name, contents] of Object.entries(files)) writeFileSync(join(artifactsDir, name), contents)
console.log(`wrote ${Object.keys(files).length} artifacts to ${artifactsDir}: ${Object.keys(files).join(', ')}`)
