import { type ChildProcess, spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TOKEN_A } from '../src/networks/registry.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { openOrder, type XchainClient, xchainClient } from './helpers/xchain.js'

const parxBin = fileURLToPath(new URL('../bin/parx.js', import.meta.url))
let d: TestDaemon
let x: XchainClient
let port: number
let attestor: { child: ChildProcess; ready: any } | undefined

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number }
      s.close(() => resolve(port))
    })
  })

/** `parx attestor --index 2` as its own OS process, as an operator runs it; resolves on its ready line. */
async function startAttestor() {
  const child = spawn(
    process.execPath,
    [
      parxBin,
      '-o',
      'json',
      '--api-url',
      d.urls.api,
      'attestor',
      '--index',
      '2',
      '--port',
      String(port),
      '--data-dir',
      d.dataDir,
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  let err = ''
  child.stderr!.on('data', (b) => (err += b))
  const ready = await new Promise<any>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', (l) => resolve(JSON.parse(l)))
    child.once('exit', (code) => reject(new Error(`parx attestor exited ${code}: ${err}`)))
  })
  attestor = { child, ready }
  return ready
}

async function stopAttestor() {
  if (!attestor) return
  const { child } = attestor
  attestor = undefined
  if (child.exitCode !== null) return
  const exited = new Promise((r) => child.once('exit', r))
  child.kill('SIGTERM')
  await exited
}

beforeAll(async () => {
  port = await freePort()
  d = await startTestDaemon({
    file: { xchain: { fillSeconds: 20, expirySeconds: 30, attestorUrls: { 2: `http://127.0.0.1:${port}` } } },
  })
  x = await xchainClient(d)
})
afterAll(async () => {
  await stopAttestor()
  await d?.close()
})

describe('an attestor as its own process (parx attestor --index N)', () => {
  it('serves its identity; the daemon asks it over HTTP and it counts toward the quorum', async () => {
    const ready = await startAttestor()
    expect(ready).toMatchObject({
      ready: true,
      index: 2,
      url: `http://127.0.0.1:${port}`,
      rails: ['sol-origin', 'evm-origin'],
    })
    // The keys the chains know attestor 2 by, read from keys.json; the daemon's attestor 2 is the remote one.
    expect(ready.evm).toBe(d.services.xchain.attestors[2]!.evm)
    const health = await (await fetch(`${ready.url}/health`)).json()
    expect(health).toEqual({
      ok: true,
      index: 2,
      ed25519: ready.ed25519,
      evm: ready.evm,
      rails: ['sol-origin', 'evm-origin'],
    })

    // With attestor 0 offline, a claim needs attestor 1 and the separate process.
    d.services.xchain.attestors[0]!.mode = 'offline'
    const { built } = await openOrder(x, TOKEN_A, '1.5')
    const done = await x.waitStatus(built.orderId, (b) => b.status !== 'pending' && b.status !== 'unknown')
    expect(done).toMatchObject({ status: 'claimed', delivered: '1500000000000000000' })
    const signers = await d.services.store.db
      .selectFrom('xchain_attestations')
      .select('attestor')
      .where('order_id', '=', built.orderId)
      .execute()
    expect(signers.map((s) => s.attestor).sort()).toEqual([1, 2])
  })

  it('checks the chains itself: it refuses an order it cannot find and malformed requests', async () => {
    const url = attestor!.ready.url
    const post = async (body: unknown) => {
      const r = await fetch(`${url}/attest`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      })
      return { status: r.status, body: (await r.json()) as any }
    }
    const none = await post({ rail: 'sol-origin', orderId: '0x' + 'ab'.repeat(32), statement: '0x' + '11'.repeat(32) })
    expect(none).toMatchObject({
      status: 200,
      body: { ok: false, attestor: 2, reason: expect.stringMatching(/finds no order/) },
    })
    expect(await post({ rail: 'sol-origin', orderId: 'xyz', statement: '0x' + '11'.repeat(32) })).toMatchObject({
      status: 400,
      body: { code: 'BAD_REQUEST' },
    })
    expect(await post({ rail: 'sol-origin', orderId: '0x' + 'ab'.repeat(32), statement: '0x123' })).toMatchObject({
      status: 400,
      body: { code: 'BAD_REQUEST' },
    })
    expect(await post('{')).toMatchObject({ status: 400, body: { code: 'MALFORMED_JSON' } })
    const missing = await fetch(`${url}/nope`)
    expect(missing.status).toBe(404)
  })

  it('with it stopped and attestor 0 offline the solver does not deliver; restarted, the order is claimed', async () => {
    await stopAttestor()
    d.services.xchain.attestors[0]!.mode = 'offline'
    const { built, recipient } = await openOrder(x, TOKEN_A, '1')
    // No quorum reachable: the solver never pays first. A few worker passes later, nothing was delivered.
    await new Promise((r) => setTimeout(r, 1_500))
    const waiting = (await x.status(built.orderId)).body
    expect(waiting).toMatchObject({ status: 'pending', delivered: '0', deliverRef: null })
    expect(await x.baseBalance(recipient, TOKEN_A)).toBe(0n)
    await startAttestor()
    const done = await x.waitStatus(built.orderId, (b) => b.status !== 'pending' && b.status !== 'unknown')
    expect(done).toMatchObject({ status: 'claimed', delivered: '1000000000000000000' })
    expect(await x.baseBalance(recipient, TOKEN_A)).toBe(1_000_000_000_000_000_000n)
    d.services.xchain.attestors[0]!.mode = 'honest'
  })
})

describe('parx attestor refuses what cannot work', () => {
  it('an index out of range is a usage error; no keys is NO_CREDENTIALS', async () => {
    const run = (args: string[], env: NodeJS.ProcessEnv = {}) =>
      new Promise<{ code: number | null; out: string }>((resolve) => {
        const c = spawn(process.execPath, [parxBin, '-o', 'json', '--api-url', d.urls.api, 'attestor', ...args], {
          env: { ...process.env, PARX_RUNTIME_DIR: d.dataDir + '-none', ...env },
        })
        let out = ''
        c.stdout.on('data', (b) => (out += b))
        c.once('exit', (code) => resolve({ code, out }))
      })
    const bad = await run(['--index', '3'])
    expect([bad.code, JSON.parse(bad.out).code]).toEqual([2, 'USAGE'])
    const nokeys = await run(['--index', '1'])
    expect([nokeys.code, JSON.parse(nokeys.out).code]).toEqual([4, 'NO_CREDENTIALS'])
  })
})
