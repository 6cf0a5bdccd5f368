import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Pool } from 'undici'
import type { Address, Hex } from 'viem'
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'
import { keyFilePath } from '../src/config/paths.js'
import { TOKEN_A, USDC } from '../src/networks/registry.js'
import {
  type BaseInfo,
  type ConfirmResult,
  type SwapRequestBody,
  signSwap,
  toWireOrder,
} from '../src/sdk/swap/index.js'
import { report, spawnServe, summary } from './lib.js'

const USERS = 100
/** Per user: one swap alone, then MODERATE swaps at 10 users at a time, then SUSTAINED at 50 at a time. */
const MODERATE = 5
const SUSTAINED = 10
const CONCURRENCY = 50
const AMOUNT = 1_000_000n // 1 USDC per entry buy

/**
 * Same-chain swaps against a real `parx serve` (anvil automine): redeem-quote latency, swap
 * 'accepted' latency (request to transaction hash), request-to-receipt latency, and sustained
 * swaps/s with concurrent users. Orders are signed before the clock starts: the figures are the
 * service's, not the client's signing.
 */
export async function benchSwap(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'parx-bench-swap-'))
  const serve = await spawnServe(['--data-dir', dataDir, '--fresh', '--log-level', 'warn'])
  const api = serve.ready.urls.api
  const pool = new Pool(api, { connections: CONCURRENCY + 4, pipelining: 1 })
  try {
    const call = async <T>(
      method: 'GET' | 'POST',
      path: string,
      body?: unknown,
      headers: Record<string, string> = {},
    ): Promise<{ status: number; body: T }> => {
      const res = await pool.request({
        method,
        path,
        headers: { 'content-type': 'application/json', ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
      return { status: res.statusCode, body: (await res.body.json()) as T }
    }
    const { operatorToken } = JSON.parse(readFileSync(keyFilePath(dataDir), 'utf8')) as { operatorToken: string }
    const { body: created } = await call<{ key: string }>(
      'POST',
      '/api/operator/keys',
      { name: 'bench', owner: '0x00000000000000000000000000000000000000aa' },
      { authorization: `Bearer ${operatorToken}` },
    )
    const auth = { 'x-api-key': created.key }
    const info = (await call<BaseInfo>('GET', '/api/base/info')).body

    // Quote latency, one request at a time after a warm-up.
    const quote = async () => {
      const t = performance.now()
      const r = await call('GET', `/api/base/redeem/quote?in=${TOKEN_A}&amount=125.5`, undefined, auth)
      if (r.status !== 200) throw new Error(`quote answered ${r.status}: ${JSON.stringify(r.body)}`)
      return performance.now() - t
    }
    for (let i = 0; i < 200; i++) await quote()
    const quotes: number[] = []
    for (let i = 0; i < 2000; i++) quotes.push(await quote())
    report('swap.quote.p50', summary(quotes).p50, 'ms', { requests: quotes.length, target: '< 10' })
    report('swap.quote.p99', summary(quotes).p99, 'ms')

    const perUser = 1 + MODERATE + SUSTAINED
    const users = await fundUsers(call, USERS, AMOUNT * BigInt(perUser))
    const bodies = await Promise.all(users.map((u) => signChain(u, info, perUser)))

    // Inclusion is seen by watching blocks on the chain: one poller, instead of a confirm poll per
    // swap in flight that would load the daemon with the benchmark's own traffic.
    const rpcUrls = (serve.ready.urls as { rpc?: Record<string, string> }).rpc ?? {}
    const blocks = watchBlocks(rpcUrls[Object.keys(rpcUrls).find((k) => k.endsWith('base'))!]!)
    const submit = async (body: SwapRequestBody) => {
      const t0 = performance.now()
      const r = await call<{ hash: Hex; error?: string }>('POST', '/api/base/swap', body, auth)
      if (r.status !== 200) throw new Error(`swap answered ${r.status}: ${r.body.error}`)
      const accepted = performance.now() - t0
      await blocks.included(r.body.hash)
      return { hash: r.body.hash, accepted, receipt: performance.now() - t0 }
    }

    // Latency with nobody else around: each user's first order, one after another.
    const idle = []
    for (const b of bodies) idle.push(await submit(b[0]!))
    report('swap.accepted.p50', summary(idle.map((x) => x.accepted)).p50, 'ms', {
      swaps: idle.length,
      concurrency: 1,
      target: '< 40',
    })
    report('swap.receipt.p50', summary(idle.map((x) => x.receipt)).p50, 'ms', { concurrency: 1 })
    report('swap.receipt.p99', summary(idle.map((x) => x.receipt)).p99, 'ms', { concurrency: 1 })

    // Moderate load (10 users at a time), then sustained (CONCURRENCY at a time), each user sending back to back.
    const moderate = await drive(
      bodies.map((b) => b.slice(1, 1 + MODERATE)),
      10,
      submit,
    )
    report('swap.accepted.moderate.p50', summary(moderate.samples.map((x) => x.accepted)).p50, 'ms', {
      concurrency: 10,
      swaps: moderate.samples.length,
    })
    report('swap.receipt.moderate.p50', summary(moderate.samples.map((x) => x.receipt)).p50, 'ms', { concurrency: 10 })
    report('swap.receipt.moderate.p99', summary(moderate.samples.map((x) => x.receipt)).p99, 'ms', { concurrency: 10 })
    report('swap.moderate', moderate.perSecond, 'swaps/s', { concurrency: 10 })

    const loaded = await drive(
      bodies.map((b) => b.slice(1 + MODERATE)),
      CONCURRENCY,
      submit,
    )
    report('swap.sustained', loaded.perSecond, 'swaps/s', {
      swaps: loaded.samples.length,
      users: USERS,
      concurrency: CONCURRENCY,
      target: '>= 100',
    })
    report('swap.accepted.loaded.p50', summary(loaded.samples.map((x) => x.accepted)).p50, 'ms', {
      concurrency: CONCURRENCY,
      note: 'queueing: in flight / throughput',
    })
    report('swap.receipt.loaded.p50', summary(loaded.samples.map((x) => x.receipt)).p50, 'ms', {
      concurrency: CONCURRENCY,
    })
    report('swap.receipt.loaded.p99', summary(loaded.samples.map((x) => x.receipt)).p99, 'ms', {
      concurrency: CONCURRENCY,
    })
    blocks.stop()

    // The confirm route an integrator polls, on an included swap.
    const confirms: number[] = []
    for (const x of loaded.samples.slice(0, 500)) {
      const t = performance.now()
      const c = await call<ConfirmResult>('GET', `/api/base/confirm?hash=${x.hash}`, undefined, auth)
      if (c.body.status !== 'included') throw new Error(`confirm says ${c.body.status} for ${x.hash}`)
      confirms.push(performance.now() - t)
    }
    report('swap.confirm.p50', summary(confirms).p50, 'ms', { requests: confirms.length })
  } finally {
    await pool.close()
    await serve.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

/** Resolves a transaction's inclusion by following new blocks (eth_blockNumber every 2 ms, then the block's hashes). */
function watchBlocks(rpcUrl: string) {
  const rpc = new Pool(new URL(rpcUrl).origin, { connections: 2 })
  const call = async (method: string, params: unknown[]) => {
    const res = await rpc.request({
      path: '/',
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    })
    return ((await res.body.json()) as { result: any }).result
  }
  const seen = new Set<string>()
  const waiting = new Map<string, () => void>()
  let stopped = false
  let head: number | undefined
  void (async () => {
    // A failed read ends the watch (the daemon went away); the waiting swaps then never resolve.
    while (!stopped) {
      const n = Number(await call('eth_blockNumber', []))
      head ??= n
      for (; head < n; head++) {
        const block = await call('eth_getBlockByNumber', [`0x${(head + 1).toString(16)}`, false])
        for (const h of block.transactions as string[]) {
          seen.add(h)
          waiting.get(h)?.()
        }
      }
      await new Promise((r) => setTimeout(r, 2))
    }
  })()
    .catch(() => undefined)
    .finally(() => rpc.close())
  return {
    included: (hash: string) =>
      seen.has(hash) ? Promise.resolve() : new Promise<void>((resolve) => waiting.set(hash, resolve)),
    stop: () => void (stopped = true),
  }
}

type Sample = { hash: Hex; accepted: number; receipt: number }

/** `concurrency` users at a time, each sending its orders back to back (a user's next nonce needs the last one mined). */
async function drive(
  queues: SwapRequestBody[][],
  concurrency: number,
  submit: (b: SwapRequestBody) => Promise<Sample>,
) {
  const samples: Sample[] = []
  let next = 0
  const t0 = performance.now()
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let u = next++; u < queues.length; u = next++) for (const b of queues[u]!) samples.push(await submit(b))
    }),
  )
  return { samples, perSecond: samples.length / ((performance.now() - t0) / 1000) }
}

export type Call = <T>(method: 'GET' | 'POST', path: string, body?: unknown) => Promise<{ status: number; body: T }>

export async function fundUsers(call: Call, n: number, usdc: bigint): Promise<PrivateKeyAccount[]> {
  const users = Array.from({ length: n }, () => privateKeyToAccount(generatePrivateKey()))
  const amount = (Number(usdc) / 1e6).toString()
  await Promise.all(
    users.map(async (u) => {
      const r = await call('POST', '/api/local/faucet', { to: u.address, token: USDC, amount })
      if (r.status !== 200) throw new Error(`faucet answered ${r.status}`)
    }),
  )
  return users
}

/** A fresh user's next `count` entry buys, signed ahead: router and permit nonces 0, 1, 2, ... */
export async function signChain(user: PrivateKeyAccount, info: BaseInfo, count: number): Promise<SwapRequestBody[]> {
  const out = info.out[TOKEN_A]!
  const deadline = BigInt(Math.floor(Date.now() / 1000) + 3600)
  const bodies: SwapRequestBody[] = []
  for (let i = 0; i < count; i++) {
    const order = {
      user: user.address,
      inputToken: info.usdc as Address,
      inputAmount: AMOUNT,
      outputToken: out.addr,
      minOutputAmount: AMOUNT * 10n ** BigInt(out.dec - info.usdcDec),
      solver: info.solver,
      deadline,
      nonce: BigInt(i),
    }
    const signed = await signSwap(user, info, order, BigInt(i))
    bodies.push({
      user: user.address,
      uiAmount: (Number(AMOUNT) / 1e6).toString(),
      in: USDC,
      out: TOKEN_A,
      order: toWireOrder(order),
      ...signed,
    })
  }
  return bodies
}
