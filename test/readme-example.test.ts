import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'

const run = promisify(execFile)
let d: TestDaemon
beforeAll(async () => {
  d = await startTestDaemon()
})
afterAll(async () => d?.close())

describe('the SDK example of docs/swap-api.md', () => {
  it('is examples/swap.ts, word for word', () => {
    const readme = readFileSync(new URL('../docs/swap-api.md', import.meta.url), 'utf8')
    const shown = readme.split('<!-- example:swap:start -->\n```ts\n')[1]!.split('```\n<!-- example:swap:end -->')[0]
    expect(shown).toBe(readFileSync(new URL('../examples/swap.ts', import.meta.url), 'utf8'))
  })

  it('runs as written against a daemon: buys, swaps par, redeems', async () => {
    const apiKey = await d.partnerKey()
    const { stdout } = await run(process.execPath, ['bin/run-ts.js', 'examples/swap.ts'], {
      env: { ...process.env, PARX_API_URL: d.urls.api, PARX_API_KEY: apiKey },
    })
    const [minOutBase, outputAmount] = stdout.trim().split(' ')
    expect(minOutBase).toMatch(/^\d+$/)
    expect(BigInt(outputAmount!)).toBeGreaterThanOrEqual(BigInt(minOutBase!))
    expect(BigInt(outputAmount!)).toBeGreaterThan(0n)
  })
})
