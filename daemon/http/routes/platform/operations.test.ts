import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const dir = fileURLToPath(new URL('.', import.meta.url))
const routes = readdirSync(dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))

describe('platform routes (issue 42 item 1)', () => {
  it('get operations of the service, never its rows, ledger, chains or logger', () => {
    expect(routes.length).toBeGreaterThan(30)
    // The type (PlatformOperations, daemon/http/route.ts) already refuses them; this names the files if a cast lets one through.
    const reaching = routes.filter((f) => /\bs\.(store|spends|evm|log)\b/.test(readFileSync(`${dir}/${f}`, 'utf8')))
    expect(reaching).toEqual([])
  })
})
