#!/usr/bin/env node
// The parx command. Thin on purpose: everything lives in src/cli.
import { register } from 'tsx/esm/api'

register()
const { main } = await import('../src/cli/main.ts')
process.exitCode = await main(process.argv)
