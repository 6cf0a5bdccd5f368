import type { ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type IncomingHttpHeaders, request, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Address, createPublicClient, erc20Abi, getAddress, type Hex, http, keccak256, toHex } from 'viem'
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type StandaloneChains, startStandaloneChains } from '../daemon/chains/standalone.js'
import { USDC } from '../src/networks/registry.js'
import { transferWithAuthorizationTypedData } from '../src/sdk/x402/evm/typed-data.js'
import { until } from './helpers/api-calls.js'
import { testPostgres } from './helpers/postgres.js'
import { serveReplica } from './helpers/replica.js'

/**
 * Issue 28 item 6's done-when: two `parx serve --role api` replicas on one PostgreSQL, behind a
 * small round-robin front that does what a load balancer does (health checks on /api/readiness,
 * a refused connect retried on the other replica; a connection broken after the request was sent
 * is never retried, and counts as a failure). Under steady x402 settle load each replica is
 * restarted in turn (SIGTERM, wait for exit, start again on its port). Every answer is counted:
 * none may fail, and every acknowledged settlement is on chain exactly once. PostgreSQL only.
 */
const PARALLEL = 4
const PRICE = 10_000n // 0.01 USDC

type Replica = { name: string; dataDir: string; port: number; child: ChildProcess; exited: Promise<void> }

let db: string
let chains: StandaloneChains
const replicas = new Map<string, Replica>()
const dirs: string[] = []
const tmp = (prefix: string) => {
  const d = mkdtempSync(join(tmpdir(), prefix))
  dirs.push(d)
  return d
}

/** An api replica; its port is kept across restarts. */
async function serve(name: string, dataDir: string, port: number): Promise<Replica> {
  const { child, api, exited } = await serveReplica({
    name,
    role: 'api',
    dataDir,
    port,
    chainsEnv: chains.env,
    storeUrl: db,
  })
  const r = { name, dataDir, port: Number(new URL(api).port), child, exited }
  replicas.set(name, r)
  return r
}

type Answer = { status: number; headers: IncomingHttpHeaders; body: Buffer }

/** One request on its own connection (no keep-alive to a replica: a restart never meets a reused socket). */
function forward(
  port: number,
  method: string,
  path: string,
  headers: IncomingHttpHeaders,
  body: Buffer,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        headers: { ...headers, host: `127.0.0.1:${port}`, connection: 'close' },
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }))
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

/** The front: round robin over the replicas its health checks find ready. */
function front(names: string[]) {
  const up = new Map(names.map((n) => [n, true]))
  const stats = { retriedRefused: 0, broken: 0, markedDown: 0 }
  // Requests being forwarded to each replica now; those still open when it was sent SIGTERM are
  // marked, and their outcomes (a status, or 'broken') kept: the proof the restart met load.
  const active = new Map<string, Set<{ atStop: boolean }>>(names.map((n) => [n, new Set()]))
  const acrossStop = new Map<string, Array<number | 'broken'>>(names.map((n) => [n, []]))
  // Requests each replica has answered: the test waits on these, not on the clock, for load to reach a replica.
  const served = new Map(names.map((n) => [n, 0]))
  let next = 0
  const check = setInterval(() => {
    for (const n of names) {
      const r = replicas.get(n)!
      forward(r.port, 'GET', '/api/readiness', {}, Buffer.alloc(0)).then(
        (a) => up.set(n, a.status === 200),
        () => up.set(n, false),
      )
    }
  }, 200)
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const c of req) chunks.push(c as Buffer)
    const body = Buffer.concat(chunks)
    const refused = new Set<string>()
    for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
      const ready = names.filter((n) => up.get(n) && !refused.has(n))
      if (ready.length === 0) {
        refused.clear()
        await new Promise((r) => setTimeout(r, 50))
        continue
      }
      const n = ready[next++ % ready.length]!
      const mark = { atStop: false }
      active.get(n)!.add(mark)
      try {
        const a = await forward(replicas.get(n)!.port, req.method!, req.url!, req.headers, body).finally(() =>
          active.get(n)!.delete(mark),
        )
        if (mark.atStop) acrossStop.get(n)!.push(a.status)
        served.set(n, served.get(n)! + 1)
        res.writeHead(a.status, { 'content-type': a.headers['content-type'] ?? 'application/json' })
        return void res.end(a.body)
      } catch (e) {
        // Refused before a byte was sent: safe to send elsewhere. Anything else may have been acted on.
        if ((e as NodeJS.ErrnoException).code === 'ECONNREFUSED') {
          stats.retriedRefused++
          refused.add(n)
          up.set(n, false)
          continue
        }
        stats.broken++
        if (mark.atStop) acrossStop.get(n)!.push('broken')
        res.writeHead(502, { 'content-type': 'application/json' })
        return void res.end(
          JSON.stringify({ error: `the replica broke the connection: ${(e as Error).message}`, code: 'FRONT_BROKEN' }),
        )
      }
    }
    res.writeHead(503)
    res.end('{"error":"no replica ready within 60 s"}')
  })
  return {
    stats,
    /** Requests `name` has answered so far. */
    served: (name: string) => served.get(name)!,
    /** Requests being forwarded to `name` now. */
    inFlight: (name: string) => active.get(name)!.size,
    /** Called as `name` is sent SIGTERM: the requests open on it now are the ones the stop must answer. */
    stopping: (name: string) => active.get(name)!.forEach((m) => (m.atStop = true)),
    /** What the requests open on `name` at its SIGTERM were answered (they finished after it). */
    acrossStop: (name: string) => acrossStop.get(name)!,
    listen: () =>
      new Promise<string>((resolve) =>
        server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as { port: number }).port}`)),
      ),
    close: () => {
      clearInterval(check)
      server.close()
    },
  }
}

beforeAll(async () => {
  db = await (await testPostgres()).createDatabase()
  chains = await startStandaloneChains({ as: 'testnet', dataDir: tmp('parx-chains-'), port: 0 })
  await serve('api-a', tmp('parx-api-a-'), 0)
  await serve('api-b', tmp('parx-api-b-'), 0)
}, 240_000)

afterAll(async () => {
  for (const r of replicas.values())
    if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill('SIGTERM')
  await Promise.all([...replicas.values()].map((r) => r.exited))
  await chains?.stop()
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
}, 120_000)

describe('rolling restart of two api replicas under load', () => {
  it('restarts each replica in turn with no failed request and every acknowledged settlement on chain exactly once', async () => {
    const base = createPublicClient({ transport: http(chains.rpc['base-sepolia']) })
    const usdc = chains.contracts['base-sepolia']![USDC] as Address
    const balance = (owner: Address) =>
      base.readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [owner] })
    const payers = Array.from({ length: PARALLEL }, () => privateKeyToAccount(generatePrivateKey()))
    for (const p of payers) {
      const res = await fetch(chains.faucetUrl, {
        method: 'POST',
        body: JSON.stringify({ network: 'base-sepolia', to: p.address, token: USDC, amount: '20' }),
      })
      expect(res.status).toBe(200)
    }
    const seller = getAddress(privateKeyToAccount(generatePrivateKey()).address)
    const lb = front(['api-a', 'api-b'])
    const url = await lb.listen()

    const answers: {
      status: number
      success?: boolean
      transaction?: Hex
      errorReason?: string
      nonce: Hex
      payer: Address
    }[] = []
    const settleOne = async (payer: PrivateKeyAccount) => {
      const requirements = {
        scheme: 'exact',
        network: 'eip155:84532',
        asset: usdc,
        amount: PRICE.toString(),
        payTo: seller,
        maxTimeoutSeconds: 120,
        extra: { name: 'USD Coin', version: '2', assetTransferMethod: 'eip3009' },
      }
      const a = {
        from: payer.address,
        to: seller,
        value: PRICE,
        validAfter: 0n,
        validBefore: BigInt(Math.floor(Date.now() / 1000) + 600),
        nonce: keccak256(toHex(`${payer.address}:${Math.random()}`)),
      }
      const signature = await payer.signTypedData(
        transferWithAuthorizationTypedData(
          { name: 'USD Coin', version: '2', chainId: 84532, verifyingContract: usdc },
          a,
        ),
      )
      const authorization = { ...a, value: a.value.toString(), validAfter: '0', validBefore: a.validBefore.toString() }
      const body = {
        x402Version: 2,
        paymentPayload: { x402Version: 2, accepted: requirements, payload: { signature, authorization } },
        paymentRequirements: requirements,
      }
      const res = await fetch(`${url}/facilitator/settle`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
      const text = await res.text()
      let out: { success?: boolean; transaction?: Hex; errorReason?: string } = {}
      try {
        out = JSON.parse(text)
      } catch {
        out = { errorReason: text.slice(0, 200) }
      }
      answers.push({ status: res.status, ...out, nonce: a.nonce, payer: payer.address })
    }

    // Steady load: each payer settles one payment after another until both restarts are done.
    let restarting = true
    const load = Promise.all(
      payers.map(async (p) => {
        while (restarting) await settleOne(p)
      }),
    )
    const sellerBefore = await balance(seller)
    const restarts: { name: string; exitMs: number; readyMs: number }[] = []
    try {
      // Steady load before the first restart: each replica has answered a round of it (each payer once).
      await until(
        async () => Math.min(lb.served('api-a'), lb.served('api-b')),
        (n) => n >= PARALLEL,
        'load on both replicas',
      )
      for (const name of ['api-a', 'api-b']) {
        const r = replicas.get(name)!
        // SIGTERM lands while the replica answers requests (bounded: without load it is sent anyway, and the check below fails).
        for (let i = 0; lb.inFlight(name) === 0 && i < 2_000; i++) await new Promise((res) => setTimeout(res, 5))
        const t0 = Date.now()
        lb.stopping(name)
        r.child.kill('SIGTERM')
        await r.exited
        const exitMs = Date.now() - t0
        expect(r.child.exitCode).toBe(0)
        await serve(name, r.dataDir, r.port)
        restarts.push({ name, exitMs, readyMs: Date.now() - t0 })
        // Back in rotation before the next one goes.
        for (;;) {
          const ok = await fetch(`http://127.0.0.1:${r.port}/api/readiness`).then(
            (x) => x.status === 200,
            () => false,
          )
          if (ok) break
          await new Promise((res) => setTimeout(res, 100))
        }
        // Serving load again (the front's health check has it up) before the other one goes.
        const answered = lb.served(name)
        await until(
          async () => lb.served(name),
          (n) => n >= answered + PARALLEL,
          `${name} serving again`,
        )
      }
    } finally {
      restarting = false
      await load
      lb.close()
    }

    const failed = answers.filter((a) => a.status !== 200 || !a.success)
    console.log(
      `[rolling-restart] ${answers.length} settles through the front, ${failed.length} failed; refused connects retried ${lb.stats.retriedRefused}, broken ${lb.stats.broken}; open at each SIGTERM ${JSON.stringify({ a: lb.acrossStop('api-a'), b: lb.acrossStop('api-b') })}; restarts ${JSON.stringify(restarts)}`,
    )
    expect(failed, JSON.stringify(failed.slice(0, 3))).toEqual([])
    expect(lb.stats.broken).toBe(0)
    expect(answers.length).toBeGreaterThan(20)
    // Each restart met load: requests sent to the replica before its SIGTERM finished after it, all answered 200.
    for (const name of ['api-a', 'api-b']) {
      const across = lb.acrossStop(name)
      expect(across.length, `requests open on ${name} at its SIGTERM`).toBeGreaterThan(0)
      expect(
        across.every((x) => x === 200),
        JSON.stringify(across),
      ).toBe(true)
    }

    // Every acknowledged settlement is on chain, once: the seller got exactly one price per answer,
    // and each payer lost exactly that much (a settlement replayed twice could not pass the same
    // authorization nonce; one lost would be missing from the seller's balance).
    for (const tx of new Set(answers.map((a) => a.transaction!)))
      expect((await base.waitForTransactionReceipt({ hash: tx, timeout: 60_000 })).status).toBe('success')
    expect(await balance(seller)).toBe(sellerBefore + BigInt(answers.length) * PRICE)
    for (const p of payers) {
      const n = BigInt(answers.filter((a) => a.payer === p.address).length)
      expect(await balance(p.address)).toBe(20_000_000n - n * PRICE)
    }
  }, 600_000)
})
