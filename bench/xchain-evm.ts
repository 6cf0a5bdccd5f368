import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Keypair } from '@solana/web3.js'
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts'
import { keyFilePath } from '../src/config/paths.js'
import { TOKEN_A } from '../src/networks/registry.js'
import { buildSignSubmitEvmOrigin } from '../src/sdk/xchain/evm-origin-client.js'
import { report, spawnServe, summary } from './lib.js'

const IN_FLIGHT = 20
const SEQUENTIAL = 30
const LOADED = 100

/**
 * evm-origin figures against `parx serve` in its own process, driven as an integrator would: the
 * SDK's gasless open (wallets with no ETH), then status polls (every 10 ms alone, 200 ms under load,
 * so the polls themselves do not swamp the daemon: each reads Base). Latency is from the
 * submit's answer (the lock confirmed on Base) to the first poll that answers `claimed` (filled on
 * Solana, attested 2 of 3, claimed on Base): one order at a time, then with 20 orders in flight,
 * and the orders claimed per minute under that load.
 */
export async function benchXchainEvm(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'parx-bench-xchain-evm-'))
  const serve = await spawnServe(['--data-dir', dataDir, '--fresh', '--log-level', 'warn'])
  const apiUrl = serve.ready.urls.api
  try {
    const call = async (path: string, body?: unknown, headers: Record<string, string> = {}) => {
      const res = await fetch(`${apiUrl}${path}`, { method: body === undefined ? 'GET' : 'POST', headers: { 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) })
      const json = (await res.json()) as any
      if (res.status >= 300) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(json)}`)
      return json
    }
    const { operatorToken } = JSON.parse(readFileSync(keyFilePath(dataDir), 'utf8')) as { operatorToken: string }
    const { key } = await call('/api/operator/keys', { name: 'bench', owner: `0x${'00'.repeat(19)}aa` }, { authorization: `Bearer ${operatorToken}` })
    const users: PrivateKeyAccount[] = Array.from({ length: IN_FLIGHT }, () => privateKeyToAccount(generatePrivateKey()))
    for (const u of users) await call('/api/local/faucet', { network: 'local-base', to: u.address, token: TOKEN_A, amount: '1000' })

    /** One order from open-confirmed to claimed, in ms (status polled every `pollMs`). */
    const order = async (user: PrivateKeyAccount, pollMs: number): Promise<number> => {
      const { orderId, submitted } = await buildSignSubmitEvmOrigin({ apiUrl, apiKey: key }, user, {
        inSym: TOKEN_A, outSym: TOKEN_A, uiAmount: '1', recipientSol: Keypair.generate().publicKey.toBase58(),
      })
      if (!submitted.opened) throw new Error(`order ${orderId} did not open: ${JSON.stringify(submitted)}`)
      const t = performance.now()
      for (;;) {
        const s = await call(`/api/xchain/status/${orderId}?rail=evm-origin`, undefined, { 'x-api-key': key })
        if (s.status === 'claimed') return performance.now() - t
        if (s.status !== 'pending') throw new Error(`order ${orderId} ended ${s.status}: ${s.reason}`)
        await new Promise((r) => setTimeout(r, pollMs))
      }
    }

    const [alice] = users as [PrivateKeyAccount]
    const one: number[] = []
    for (let i = 0; i < SEQUENTIAL; i++) one.push(await order(alice, 10))
    const a = summary(one)
    report('xchain.evm_origin.open_to_claimed.p50', a.p50, 'ms', { orders: a.n, inFlight: 1, p99: Math.round(a.p99 * 100) / 100, chains: 'embedded' })

    const loaded: number[] = []
    let next = 0
    const t0 = performance.now()
    await Promise.all(users.map(async (u) => {
      while (next++ < LOADED) loaded.push(await order(u, 200))
    }))
    const minutes = (performance.now() - t0) / 60_000
    const l = summary(loaded)
    report('xchain.evm_origin.open_to_claimed.p50_at_20_in_flight', l.p50, 'ms', { orders: l.n, inFlight: IN_FLIGHT, p99: Math.round(l.p99 * 100) / 100 })
    report('xchain.evm_origin.orders_per_minute', l.n / minutes, 'orders/min', { inFlight: IN_FLIGHT, orders: l.n, each: 'build + sign + gasless submit, fill on Solana, 2-of-3 attest, claim on Base' })
  } finally {
    await serve.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}
