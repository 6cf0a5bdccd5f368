import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { errorCodes } from '../src/errors/codes.js'

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
/** The reference moved out of the README by reader; the error table lives in docs/errors.md. */
const errorsDoc = readFileSync(new URL('../docs/errors.md', import.meta.url), 'utf8')

describe('README and docs/errors.md', () => {
  it('documents every error code with its HTTP status, and no other', () => {
    const table = errorsDoc.split('<!-- error-codes:start -->')[1]!.split('<!-- error-codes:end -->')[0]!
    const rows = [...table.matchAll(/^\| (\d{3}) \| `([A-Z_]+)` \| (.+) \|$/gm)].map((m) => [m[2], Number(m[1]), m[3]])
    expect(rows).toEqual(Object.entries(errorCodes).map(([code, v]) => [code, v.status, v.meaning]))
  })

  it('has the two quick-start commands', () => {
    expect(readme).toContain('npm install && npm start')
    expect(readme).toContain('npm install && npm test')
    const ci = readFileSync(new URL('../.ci/run', import.meta.url), 'utf8')
    expect(ci).toContain('npm install')
    expect(ci).toContain('npm test')
  })
})
