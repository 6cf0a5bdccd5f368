import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { completionFiles, completionsDir } from './commands/completion.js'
import { completions } from './completions.js'
import { buildProgram } from './program.js'

describe('shell completions', () => {
  it('the committed scripts match the command tree (run npm run build:completions when this fails)', () => {
    const scripts = completions(buildProgram({ stdout: () => {}, stderr: () => {}, env: {} }))
    for (const [shell, file] of Object.entries(completionFiles)) {
      expect(readFileSync(join(completionsDir(), file), 'utf8'), `${file} is stale: run npm run build:completions`).toBe(scripts[shell as keyof typeof scripts])
    }
  })

  it('know every command', () => {
    const { bash, fish } = completions(buildProgram({ stdout: () => {}, stderr: () => {}, env: {} }))
    for (const cmd of ['serve', 'faucet', 'keys', 'operator-token', 'status', 'completion']) {
      expect(bash).toContain(cmd)
      expect(fish).toContain(cmd)
    }
  })
})
