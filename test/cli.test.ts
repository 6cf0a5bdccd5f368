import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { main } from '../src/cli/main.js'
import { exitCodes } from '../src/cli/exit-codes.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'

let d: TestDaemon
beforeAll(async () => {
  d = await startTestDaemon()
})
afterAll(async () => d?.close())

/** Runs `parx ...` in-process and captures what it prints. */
async function parx(args: string[], env: NodeJS.ProcessEnv = {}) {
  const out: string[] = []
  const err: string[] = []
  process.exitCode = 0
  const code = await main(['node', 'parx', '--api-url', d.urls.api, ...args], { stdout: (s: string) => out.push(s), stderr: (s: string) => err.push(s), env })
  process.exitCode = 0
  return { code, out: out.join('\n'), err: err.join('\n') }
}

describe('parx keys', () => {
  it('creates, lists and deactivates a key with the token read from the data dir', async () => {
    const created = await parx(['--output', 'json', 'keys', 'create', '--name', 'backend', '--data-dir', d.dataDir])
    expect(created.code).toBe(0)
    const key = JSON.parse(created.out)
    expect(key.key).toMatch(/^parx-[0-9a-f]{32}$/)
    const listed = JSON.parse((await parx(['-o', 'json', 'keys', 'list', '--data-dir', d.dataDir])).out)
    expect(listed.keys.some((k: any) => k.id === key.id && k.state === 'active')).toBe(true)
    const off = await parx(['keys', 'deactivate', key.id, '--data-dir', d.dataDir])
    expect(off.code).toBe(0)
    expect(off.out).toMatch(/Deactivated/)
  })

  it('prints the operator token for scripts', async () => {
    const r = await parx(['-o', 'json', 'keys', 'operator-token', '--data-dir', d.dataDir])
    expect(JSON.parse(r.out)).toEqual({ operatorToken: d.services.keys.operatorToken })
  })

  it('exits with the auth code on a wrong token', async () => {
    const r = await parx(['-o', 'json', 'keys', 'list', '--operator-token', 'x'.repeat(30)])
    expect(r.code).toBe(exitCodes.auth)
    expect(JSON.parse(r.out).code).toBe('UNAUTHORIZED')
  })
})

describe('parx faucet and status', () => {
  it('mints and reports in json', async () => {
    const r = await parx(['-o', 'json', 'faucet', '--to', '0x00000000000000000000000000000000000000cc', '--token', 'XUSD', '--amount', '3.5'])
    expect(r.code).toBe(0)
    expect(JSON.parse(r.out)).toMatchObject({ network: 'local-base', token: 'XUSD', amount: '3.5', tx: expect.stringMatching(/^0x[0-9a-f]{64}$/) })
  })

  it('rejected requests exit with the rejected code and the service message', async () => {
    const r = await parx(['faucet', '--to', 'nobody'])
    expect(r.code).toBe(exitCodes.rejected)
    expect(r.err).toMatch(/not an EVM address/)
  })

  it('status shows readiness', async () => {
    const r = await parx(['-o', 'json', 'status'])
    expect(r.code).toBe(0)
    expect(JSON.parse(r.out).ready).toBe(true)
  })

  it('an unreachable daemon exits 5 and says what to do', async () => {
    const out: string[] = []
    const code = await main(['node', 'parx', '--api-url', 'http://127.0.0.1:9', 'status'], { stdout: (s: string) => out.push(s), stderr: (s: string) => out.push(s), env: {} })
    process.exitCode = 0
    expect(code).toBe(exitCodes.unreachable)
    expect(out.join('\n')).toMatch(/parx serve/)
  })

  it('usage errors exit 2', async () => {
    const r = await parx(['faucet'])
    expect(r.code).toBe(exitCodes.usage)
  })
})
