import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { promisify } from 'node:util'
import { Keypair, Transaction } from '@solana/web3.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { exitCodes } from '../src/errors/exit-codes.js'
import { TOKEN_A } from '../src/networks/registry.js'
import { createXchainClient, OrderWaitTimeoutError } from '../src/sdk/xchain/client.js'
import { runParx } from './helpers/cli.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { type XchainClient, xchainClient } from './helpers/xchain.js'

const exec = promisify(execFile)
let d: TestDaemon
let x: XchainClient
let apiKey: string
beforeAll(async () => {
  d = await startTestDaemon({ file: { xchain: { fillSeconds: 20, expirySeconds: 30 } } })
  x = await xchainClient(d)
  apiKey = await d.partnerKey()
})
afterAll(async () => d?.close())

/** Runs `parx ...` in-process against the test daemon, with the partner key in PARX_API_KEY. */
const parx = (args: string[], env: NodeJS.ProcessEnv = { PARX_API_KEY: apiKey }) => runParx(d.urls.api, args, env)

describe('parx xchain build | status', () => {
  it('builds a sol-origin order the user signs; status --wait follows it to claimed (exit 0)', async () => {
    const user = Keypair.generate()
    await x.fund(user.publicKey, TOKEN_A, '20')
    const recipient = x.newRecipient()
    const b = await parx([
      '-o',
      'json',
      'xchain',
      'build',
      'sol-origin',
      '--user',
      user.publicKey.toBase58(),
      '--in',
      TOKEN_A,
      '--amount',
      '3.25',
      '--recipient',
      recipient,
    ])
    expect(b.code).toBe(0)
    const built = JSON.parse(b.out)
    expect(built).toMatchObject({ rail: 'sol-origin', inAmount: 3.25, outAmount: 3.25, outToken: TOKEN_A, recipient })
    // The text form names the order, what happens when, and the next command.
    const text = await parx(['xchain', 'status', built.orderId])
    expect(text.code).toBe(0)
    expect(text.out).toMatch(new RegExp(`${built.orderId}.*unknown`))

    await x.submit(user, built)
    const s = await parx([
      '-o',
      'json',
      'xchain',
      'status',
      built.orderId.slice(2),
      '--wait',
      '--interval',
      '0.1',
      '--timeout',
      '60',
    ])
    expect(s.code).toBe(exitCodes.ok)
    expect(JSON.parse(s.out)).toMatchObject({
      orderId: built.orderId,
      status: 'claimed',
      delivered: '3250000000000000000',
      recipient,
    })
    expect(await x.baseBalance(recipient, TOKEN_A)).toBe(3_250_000_000_000_000_000n)

    const human = await parx(['xchain', 'status', built.orderId])
    expect(human.out).toMatch(/claimed/)
    expect(human.out).toMatch(/deliver\s+0x[0-9a-f]{64}/)
  })

  it('the text build tells the user what to sign and the command to follow it', async () => {
    const user = Keypair.generate()
    await x.fund(user.publicKey, TOKEN_A, '5')
    const r = await parx([
      'xchain',
      'build',
      'sol-origin',
      '--user',
      user.publicKey.toBase58(),
      '--in',
      TOKEN_A,
      '--amount',
      '1',
      '--recipient',
      x.newRecipient(),
    ])
    expect(r.code).toBe(0)
    expect(r.out).toMatch(/the user signs txB64/)
    expect(r.out).toMatch(/parx xchain status 0x[0-9a-f]{64} --wait/)
    const txB64 = r.out.split('\n').find((l) => /^[A-Za-z0-9+/=]{200,}$/.test(l))!
    expect(Transaction.from(Buffer.from(txB64, 'base64')).feePayer!.equals(x.solver)).toBe(true)
  })

  it('refusals come back with the service code and exit 3; a wrong key exits 4; bad flags exit 2', async () => {
    const user = Keypair.generate().publicKey.toBase58()
    const lower = x.newRecipient().toLowerCase()
    const r = await parx([
      '-o',
      'json',
      'xchain',
      'build',
      'sol-origin',
      '--user',
      user,
      '--in',
      TOKEN_A,
      '--amount',
      '1',
      '--recipient',
      lower,
    ])
    expect(r.code).toBe(exitCodes.rejected)
    expect(JSON.parse(r.out)).toMatchObject({
      code: 'BAD_REQUEST',
      error: expect.stringMatching(/recipientEvm.*checksum/),
    })
    const bad = await parx(['-o', 'json', 'xchain', 'status', 'xyz'])
    expect([bad.code, JSON.parse(bad.out).code]).toEqual([exitCodes.rejected, 'BAD_REQUEST'])
    const key = await parx(['-o', 'json', 'xchain', 'status', '0x' + 'ab'.repeat(32)], {
      PARX_API_KEY: 'parx-' + '0'.repeat(32),
    })
    expect([key.code, JSON.parse(key.out).code]).toEqual([exitCodes.auth, 'UNAUTHORIZED'])
    const rail = await parx(['xchain', 'status', '0x' + 'ab'.repeat(32), '--rail', 'moon'])
    expect(rail.code).toBe(exitCodes.usage)
    const wait = await parx(['xchain', 'status', '0x' + 'ab'.repeat(32), '--wait', '--timeout', 'soon'])
    expect(wait.code).toBe(exitCodes.usage)
  })

  it('--wait gives up at --timeout with WAIT_TIMEOUT (exit 1) while the order goes on', async () => {
    const unknown = '0x' + 'cd'.repeat(32)
    const r = await parx(['-o', 'json', 'xchain', 'status', unknown, '--wait', '--timeout', '0.3', '--interval', '0.1'])
    expect(r.code).toBe(exitCodes.failure)
    expect(JSON.parse(r.out)).toMatchObject({
      code: 'WAIT_TIMEOUT',
      error: expect.stringMatching(/still unknown after 0.3 s/),
    })
  })
})

describe('the SDK', () => {
  it('openSolOrigin builds, signs and submits; waitForStatus polls to claimed', async () => {
    const sdk = createXchainClient({ apiUrl: d.urls.api, apiKey })
    const user = Keypair.generate()
    await x.fund(user.publicKey, TOKEN_A, '10')
    const recipientEvm = x.newRecipient()
    const seen: string[] = []
    const { built, signature } = await sdk.openSolOrigin({
      signer: user,
      connection: x.connection,
      inSym: TOKEN_A,
      outSym: TOKEN_A,
      uiAmount: '2',
      recipientEvm,
    })
    expect(signature).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/)
    const final = await sdk.waitForStatus(built.orderId, { intervalMs: 100, onUpdate: (s) => seen.push(s.status) })
    expect(final).toMatchObject({ status: 'claimed', delivered: '2000000000000000000', recipient: recipientEvm })
    expect(seen.at(-1)).toBe('claimed')
    expect(await x.solBalance(user.publicKey)).toBe(0n)
  })

  it('waitForStatus times out with the last answer; build errors are ApiErrors with the code', async () => {
    const sdk = createXchainClient({ apiUrl: d.urls.api, apiKey })
    const err = await sdk.waitForStatus('ab'.repeat(32), { timeoutMs: 200, intervalMs: 50 }).catch((e) => e)
    expect(err).toBeInstanceOf(OrderWaitTimeoutError)
    expect(err.last).toMatchObject({ status: 'unknown', orderId: '0x' + 'ab'.repeat(32) })
    const refused = await sdk
      .buildSolOrigin({
        user: Keypair.generate().publicKey.toBase58(),
        inSym: TOKEN_A,
        outSym: TOKEN_A,
        uiAmount: '1',
        recipientEvm: x.newRecipient(),
      })
      .catch((e) => e)
    expect([refused.status, refused.code]).toEqual([400, 'INSUFFICIENT_BALANCE'])
  })

  it('the cross-chain example of docs/cross-chain.md is examples/xchain.ts word for word, and runs as written', async () => {
    const readme = readFileSync(new URL('../docs/cross-chain.md', import.meta.url), 'utf8')
    const shown = readme
      .split('<!-- example:xchain:start -->\n```ts\n')[1]!
      .split('```\n<!-- example:xchain:end -->')[0]
    expect(shown).toBe(readFileSync(new URL('../examples/xchain.ts', import.meta.url), 'utf8'))
    const { stdout } = await exec(process.execPath, ['bin/run-ts.js', 'examples/xchain.ts'], {
      env: { ...process.env, PARX_API_URL: d.urls.api, PARX_API_KEY: apiKey },
    })
    expect(stdout.trim()).toBe('claimed 12500000000000000000 true')
  })
})
