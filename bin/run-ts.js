#!/usr/bin/env node
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
// Runs one TypeScript script of the repo (build and bench scripts): node bin/run-ts.js <file.ts> [args]
import { register } from 'tsx/esm/api'

register()
const script = process.argv[2]
if (!script) {
  console.error('usage: node bin/run-ts.js <script.ts> [args...]')
  process.exit(2)
}
process.argv.splice(2, 1)
await import(pathToFileURL(resolve(script)).href)
