import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Connection, Keypair } from '@solana/web3.js'
import { keyFilePath } from '../src/config/paths.js'
import { TOKEN_A } from '../src/networks/registry.js'
import { createXchainClient, type XchainClient } from '../src/sdk/xchain/client.js'
import type { XchainRail } from '../src/sdk/xchain/wire.js'
import { childrenCpuMs, cpuMs, report, spawnServe, summary } from './lib.js'

const SEQUENTIAL = 30
const IN_FLIGHT = 20
const SUSTAINED = 80
/** Status polls: often for one order at a time; less often under load, where every poll reads the origin chain. */
const POLL_MS = 20
const LOADED_POLL_MS = 200

/** One order opened by a fresh user with no native gas; resolves when its lock is confirmed. */
export type Opener = (i: number) => Promise<{ orderId: `0x${string}`; rail: XchainRail }>

/**
 * One direction: `fund(n)` makes the next `n` users (keys, recipients, the input token from the
 * faucet) before a timed phase; `open` then opens an order for one of them. A user arrives with
 * the input token in the wallet; funding it is not part of an order, so it is kept out of the
 * figures (measured at load ~9: a few ms of the daemon's CPU per order, and this process's evm-origin
 * CPU per order went from 11-13 ms to 8).
 */
type Direction = { fund(n: number): Promise<void>; open: Opener }

type Setup = {
  api: string
  apiKey: string
  rpc: Record<string, string>
  networks: Record<string, string>
  x: XchainClient
}

/**
 * Cross-chain figures against `parx serve` in its own process on the embedded chains, driven as a
 * partner backend does it (the SDK over HTTP, the user's wallet signing): the latency from the
 * user's lock confirmed to `claimed` on the status route (polled every 20 ms), p50/p99 over 30
 * orders one at a time, per direction; then orders per minute sustained with 20 in flight (80
 * orders, polled every 200 ms). Both directions open from wallets with no native gas: sol-origin
 * with openSolOrigin (the solver pays the fee), evm-origin with openEvmOrigin (gasless permit + order). The peer is Across (~2 s fills on live chains); ours is bounded by local block times.
 * Each phase's users are made and funded from the faucet before its clock starts (`Direction.fund`):
 * until 2026-11-27 each order's faucet mint ran inside the timed window, on the same two cores, and
 * part of each of the 20 slots was spent at the faucet, so fewer orders were in the daemon at once:
 * now 20 are, and latency under load reads higher for the same daemon (in flight = rate x time).
 */
export async function benchXchain(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'parx-bench-xchain-'))
  const serve = await spawnServe(['--data-dir', dataDir, '--fresh', '--log-level', 'warn'])
  try {
    const api = serve.ready.urls.api
    const { operatorToken } = JSON.parse(readFileSync(keyFilePath(dataDir), 'utf8')) as { operatorToken: string }
    const created = await fetch(`${api}/api/operator/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${operatorToken}` },
      body: JSON.stringify({ name: 'bench', owner: `0x${'00'.repeat(19)}aa` }),
    })
    const { key: apiKey } = (await created.json()) as { key: string }
    const config = (await (await fetch(`${api}/api/config`)).json()) as {
      urls: { rpc: Record<string, string> }
      networks: Record<string, string>
    }
    const s: Setup = {
      api,
      apiKey,
      rpc: config.urls.rpc,
      networks: config.networks,
      x: createXchainClient({ apiUrl: api, apiKey }),
    }

    for (const [rail, direction] of Object.entries(await directions(s)) as [XchainRail, Direction][]) {
      const opener = direction.open
      await direction.fund(3 + SEQUENTIAL)
      for (let i = -3; i < 0; i++)
        await opener(i).then((o) => s.x.waitForStatus(o.orderId, { rail: o.rail, intervalMs: POLL_MS })) // warm-up, not counted
      const latencies: number[] = []
      for (let i = 0; i < SEQUENTIAL; i++) latencies.push(await openToClaimed(s.x, opener, i, POLL_MS))
      const l = summary(latencies)
      report(`xchain ${rail} lock confirmed -> claimed p50`, l.p50, 'ms', {
        n: l.n,
        target: '< 1000 ms on the embedded chains',
        peer: 'Across ~2000 ms on live chains',
      })
      report(`xchain ${rail} lock confirmed -> claimed p99`, l.p99, 'ms', { n: l.n })

      await direction.fund(SUSTAINED)
      const t0 = performance.now()
      // The daemon's CPU per order (from /proc; its anvil children not counted): stable on a busy machine.
      const cpu0 = cpuMs(serve.child.pid!)
      // And this process's (the users' wallets signing, the SDK polling): both share the machine.
      const own0 = process.cpuUsage()
      const anvil0 = childrenCpuMs(serve.child.pid!)
      let next = 0
      const claimed: number[] = []
      await Promise.all(
        Array.from({ length: IN_FLIGHT }, async () => {
          while (next < SUSTAINED) claimed.push(await openToClaimed(s.x, opener, SEQUENTIAL + next++, LOADED_POLL_MS))
        }),
      )
      const minutes = (performance.now() - t0) / 60_000
      const c = summary(claimed)
      const cpuPerOrder = Math.round(((cpuMs(serve.child.pid!) - cpu0) / claimed.length) * 100) / 100
      const own = process.cpuUsage(own0)
      const benchCpuPerOrder = Math.round(((own.user + own.system) / 1000 / claimed.length) * 100) / 100
      const anvilCpuPerOrder = Math.round(((childrenCpuMs(serve.child.pid!) - anvil0) / claimed.length) * 100) / 100
      report(`xchain ${rail} orders per minute, ${IN_FLIGHT} in flight`, claimed.length / minutes, 'orders/min', {
        orders: claimed.length,
        latencyP50Ms: c.p50,
        latencyP99Ms: c.p99,
        daemonCpuMsPerOrder: cpuPerOrder,
        benchCpuMsPerOrder: benchCpuPerOrder,
        anvilCpuMsPerOrder: anvilCpuPerOrder,
      })
    }
  } finally {
    await serve.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

/** Opens one order and polls until claimed; the time from the lock confirmed to the first `claimed` answer. */
async function openToClaimed(x: XchainClient, open: Opener, i: number, pollMs: number): Promise<number> {
  const o = await open(i)
  const t = performance.now()
  const final = await x.waitForStatus(o.orderId, { rail: o.rail, intervalMs: pollMs, timeoutMs: 120_000 })
  if (final.status !== 'claimed') throw new Error(`order ${o.orderId} ended ${final.status}: ${final.reason}`)
  return performance.now() - t
}

/** Both directions: sol-origin through openSolOrigin; evm-origin through openEvmOrigin (its lock is confirmed when submit answers). */
async function directions(s: Setup): Promise<Partial<Record<XchainRail, Direction>>> {
  const solana = s.networks.solana!
  const connection = new Connection(s.rpc[solana]!, 'confirmed')
  const faucet = async (body: Record<string, string>) => {
    const r = await fetch(`${s.api}/api/local/faucet`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    if (!r.ok) throw new Error(`faucet: ${await r.text()}`)
  }
  const { generatePrivateKey, privateKeyToAccount } = await import('viem/accounts')
  /** Users funded ahead of a phase, taken in turn by `open` (each opens one order). */
  const pool = <U>(make: () => Promise<U>) => {
    const ready: U[] = []
    return {
      fund: async (n: number) => {
        for (let k = 0; k < n; k += 10)
          ready.push(...(await Promise.all(Array.from({ length: Math.min(10, n - k) }, make))))
      },
      take: (): U => {
        const u = ready.shift()
        if (!u) throw new Error('bench: no funded user left (fund more before the phase)')
        return u
      },
    }
  }
  const solUsers = pool(async () => {
    const user = Keypair.generate()
    await faucet({ network: solana, to: user.publicKey.toBase58(), token: TOKEN_A, amount: '5' })
    return { user, recipientEvm: privateKeyToAccount(generatePrivateKey()).address }
  })
  const evmUsers = pool(async () => {
    const user = privateKeyToAccount(generatePrivateKey()) // holds the input token and no ETH
    await faucet({ network: s.networks.base!, to: user.address, token: TOKEN_A, amount: '5' })
    return { user, recipientSol: Keypair.generate().publicKey.toBase58() }
  })
  const solOrigin: Opener = async () => {
    const { user, recipientEvm } = solUsers.take()
    const { built } = await s.x.openSolOrigin({
      signer: user,
      connection,
      inSym: TOKEN_A,
      outSym: TOKEN_A,
      uiAmount: '1',
      recipientEvm,
    })
    return { orderId: built.orderId, rail: 'sol-origin' }
  }
  const evmOrigin: Opener = async () => {
    const { user, recipientSol } = evmUsers.take()
    const { orderId, submitted } = await s.x.openEvmOrigin(user, {
      inSym: TOKEN_A,
      outSym: TOKEN_A,
      uiAmount: '1',
      recipientSol,
    })
    if (!submitted.opened) throw new Error(`order ${orderId} did not open: ${JSON.stringify(submitted)}`)
    return { orderId, rail: 'evm-origin' }
  }
  return {
    'sol-origin': { fund: solUsers.fund, open: solOrigin },
    'evm-origin': { fund: evmUsers.fund, open: evmOrigin },
  }
}
