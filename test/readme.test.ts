import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { errorCodes } from '../src/errors/codes.js'
import { exitCodes } from '../src/errors/exit-codes.js'

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
/** The reference moved out of the README by reader; the error table lives in docs/errors.md. */
const errorsDoc = readFileSync(new URL('../docs/errors.md', import.meta.url), 'utf8')

describe('README and docs/errors.md', () => {
  it('documents every error code with its HTTP status and CLI exit code, and no other', () => {
    const table = errorsDoc.split('<!-- error-codes:start -->')[1]!.split('<!-- error-codes:end -->')[0]!
    // status "—": a code no service answers (found by the CLI, the SDK or the dashboard itself).
    const rows = [...table.matchAll(/^\| (\d{3}|—) \| (\d+) \| `([A-Z_]+)` \| (.+) \|$/gm)].map((m) => [
      m[3],
      m[1] === '—' ? null : Number(m[1]),
      Number(m[2]),
      m[4],
    ])
    expect(rows).toEqual(Object.entries(errorCodes).map(([code, v]) => [code, v.status, v.exit, v.meaning]))
  })

  it('gives every error code an exit code of the CLI', () => {
    const exits = new Set<number>(Object.values(exitCodes))
    for (const [code, v] of Object.entries(errorCodes))
      expect(exits.has((v as { exit?: number }).exit ?? -1), code).toBe(true)
  })

  it('has the two quick-start commands', () => {
    expect(readme).toContain('npm install && npm start')
    expect(readme).toContain('npm install && npm test')
    const ci = readFileSync(new URL('../.ci/run', import.meta.url), 'utf8')
    expect(ci).toContain('npm install')
    expect(ci).toContain('npm test')
  })
})
