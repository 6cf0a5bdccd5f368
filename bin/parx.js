#!/usr/bin/env node
// The parx command. Thin on purpose: everything lives in src/cli, compiled into dist/ by `npm run build`
// (run by `npm install`), so no TypeScript is compiled at run time.
import { existsSync } from 'node:fs'

const entry = new URL('../dist/parx.js', import.meta.url)
if (!existsSync(entry)) {
  console.error('parx is not built: run `npm run build` (or `npm install`) in the parx folder first.')
  process.exit(1)
}
// A reader that stopped reading (`parx openapi | head`) is not a failure of parx: end quietly, not with a stack.
process.stdout.on('error', (e) => {
  if (e.code !== 'EPIPE') throw e
  process.exit(process.exitCode ?? 0)
})
const { main } = await import(entry.href)
process.exitCode = await main(process.argv)
