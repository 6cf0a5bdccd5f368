import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { x402Client } from '@x402/core/client'
import { decodePaymentResponseHeader } from '@x402/core/http'
import { toClientEvmSigner } from '@x402/evm'
import { AuthCaptureEvmScheme as AuthCaptureClient } from '@x402/evm/auth-capture/client'
import { ExactEvmScheme as ExactClient } from '@x402/evm/exact/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import express from 'express'
import { type Address, createPublicClient, defineChain, type Hex, http, type PublicClient } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { paymentGate } from '../src/sdk/x402/seller/middleware.js'
import type { SupportedResponse } from '../src/sdk/x402/types.js'
import { listen } from '../test/helpers/x402-buyers.js'
import { daemonSettled, fundedAccount, report, spawnServe, summary } from './lib.js'

/** Paid requests per scheme, interleaved; the first UNTIMED of each warm the process and the executor. */
const REQUESTS = 60
const UNTIMED = 10
const PRICE = '1000' // 0.001 USDC
const round = (x: number) => Math.round(x * 100) / 100

/**
 * x402 auth-capture against exact through the same facilitator (parx serve, local profile), both
 * paid by the official @x402/fetch (auth-capture client 2.27.0 and the exact client, buyers holding
 * USDC and no ETH) at parx's own seller gate (paymentGate, sync capture): a paid request's p50/p99
 * (auth-capture is a hold before the handler and a capture after it: two facilitator settles, two
 * transactions, against exact's one), gas per paid request (authorize + capture against exact's
 * transfer), and the seller gate's own overhead per request: the time the gate holds a request
 * (first byte in to the answer out, measured in the seller) less the time it waits on the
 * facilitator, which is the gate's own work (parsing, requirements, the hold store, headers).
 */
export async function benchAuthCapture(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'parx-bench-ac-'))
  const ours = await spawnServe(['--data-dir', dataDir, '--fresh', '--log-level', 'warn'])
  const realFetch = globalThis.fetch
  let closeSeller = async () => {}
  try {
    const urls = ours.ready.urls as { api: string; facilitator: string; rpc: Record<string, string> }
    const baseRpc = Object.entries(urls.rpc).find(([k]) => k.endsWith('base'))![1]
    const chainId = await createPublicClient({ transport: http(baseRpc) }).getChainId()
    const network = `eip155:${chainId}` as const
    const supported = (await (await fetch(`${urls.facilitator}/supported`)).json()) as SupportedResponse
    const kind = supported.kinds.find((k) => k.scheme === 'auth-capture' && k.network === network)!
    const usdc = kind.extra!.asset as Address
    const chain = defineChain({
      id: chainId,
      name: 'local-base',
      nativeCurrency: { name: 'ETH', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [baseRpc] } },
    })
    const client = createPublicClient({ chain, transport: http(baseRpc) }) as PublicClient

    // The seller's consent to captures: a partner key bound to payTo (the operator token is in the data dir).
    const payTo = privateKeyToAccount(generatePrivateKey()).address
    const operatorToken = JSON.parse(readFileSync(join(dataDir, 'keys.json'), 'utf8')).operatorToken as string
    const keyRes = await fetch(`${urls.api}/api/operator/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${operatorToken}` },
      body: JSON.stringify({ name: 'bench-seller', owner: payTo }),
    })
    const apiKey = ((await keyRes.json()) as { key: string }).key

    // Time each request spends in the gate, and in facilitator calls made while it is served.
    let facilitatorMs = 0
    let gateMs = 0
    globalThis.fetch = (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
      const url = String(input instanceof Request ? input.url : input)
      if (!url.startsWith(urls.facilitator) || url.endsWith('/supported')) return realFetch(input, init)
      const t = performance.now()
      try {
        return await realFetch(input, init)
      } finally {
        facilitatorMs += performance.now() - t
      }
    }) as typeof fetch
    const app = express()
    app.use((_req, res, next) => {
      const t = performance.now()
      res.once('finish', () => (gateMs = performance.now() - t))
      next()
    })
    const price = { network: 'local-base', asset: 'USDC', amount: PRICE, payTo }
    app.use(
      paymentGate({
        facilitator: { url: urls.facilitator, apiKey },
        routes: {
          'GET /exact': { prices: [{ ...price, method: 'eip3009' }] },
          'GET /ac': { prices: [{ ...price, scheme: 'auth-capture' as const }] },
        },
      }),
    )
    app.get('/exact', (_req, res) => void res.json({ paid: 'exact' }))
    app.get('/ac', (_req, res) => void res.json({ paid: 'auth-capture' }))
    const seller = await listen(app)
    closeSeller = seller.close

    const spendControls = { allowedAssets: [{ network, asset: usdc, maxAmountPerPayment: '10000' }] }
    const acBuyer = await fundedAccount(urls.api),
      exactBuyer = await fundedAccount(urls.api)
    const payAc = wrapFetchWithPayment(
      realFetch,
      x402Client.fromConfig({
        schemes: [{ network: 'eip155:*', client: new AuthCaptureClient(toClientEvmSigner(acBuyer, client as never)) }],
        spendControls,
      }),
    )
    const payExact = wrapFetchWithPayment(
      realFetch,
      x402Client.fromConfig({
        schemes: [{ network: 'eip155:*', client: new ExactClient(toClientEvmSigner(exactBuyer, client as never)) }],
        spendControls,
      }),
    )
    const paid = async (pay: typeof fetch, path: string) => {
      facilitatorMs = 0
      const t = performance.now()
      const r = await pay(`${seller.url}${path}`)
      const text = await r.text()
      const ms = performance.now() - t
      if (r.status !== 200)
        throw new Error(
          `${path} answered ${r.status}: ${text} ${r.headers.get('payment-required') ?? ''} ${r.headers.get('payment-response') ?? ''}`,
        )
      const settled = decodePaymentResponseHeader(r.headers.get('payment-response')!) as {
        transaction: string
        extra?: { authorizeTransaction?: string }
      }
      return {
        ms,
        own: gateMs - facilitatorMs,
        txs: [settled.transaction, settled.extra?.authorizeTransaction].filter((x): x is string => Boolean(x)),
      }
    }
    const gasOf = async (txs: string[]) => {
      let gas = 0n
      for (const hash of new Set(txs)) gas += (await client.getTransactionReceipt({ hash: hash as Hex })).gasUsed
      return gas
    }

    for (let i = 0; i < 3; i++) await paid(payExact, '/exact') // the daemon's first settles prepare its executor
    const settledAfterMs = await daemonSettled(ours.child.pid!)
    const samples = { ac: [] as number[], exact: [] as number[], acOwn: [] as number[], exactOwn: [] as number[] }
    const txs = { ac: [] as string[], exact: [] as string[] }
    for (let i = 0; i < REQUESTS; i++) {
      // Alternating which goes first, so neither always meets the chain right after the other's transactions.
      for (const path of i % 2 ? ['/ac', '/exact'] : ['/exact', '/ac']) {
        const ac = path === '/ac'
        const r = await paid(ac ? payAc : payExact, path)
        if (i < UNTIMED) continue
        ;(ac ? samples.ac : samples.exact).push(r.ms)
        ;(ac ? samples.acOwn : samples.exactOwn).push(r.own)
        ;(ac ? txs.ac : txs.exact).push(...r.txs)
      }
    }
    const n = REQUESTS - UNTIMED
    const a = summary(samples.ac),
      e = summary(samples.exact),
      ao = summary(samples.acOwn),
      eo = summary(samples.exactOwn)
    const acGas = Number(await gasOf(txs.ac)) / n,
      exactGas = Number(await gasOf(txs.exact)) / n
    const conditions = {
      requests: n,
      untimed: UNTIMED,
      loadAverage1m: round(loadavg()[0]!),
      daemonSettledAfterMs: settledAfterMs,
    }
    report('auth-capture request p50 (hold + capture; official client, parx gate and facilitator)', a.p50, 'ms', {
      p99: round(a.p99),
      n: a.n,
      transactions: new Set(txs.ac).size,
    })
    report('exact request p50 (official client, parx gate and facilitator)', e.p50, 'ms', {
      p99: round(e.p99),
      n: e.n,
      transactions: new Set(txs.exact).size,
    })
    report('auth-capture p50 / exact p50', a.p50 / e.p50, 'x', { p99Ratio: round(a.p99 / e.p99), ...conditions })
    report('auth-capture gas per paid request (authorize + capture)', acGas, 'gas')
    report('exact gas per paid request', exactGas, 'gas')
    report('auth-capture gas / exact gas per paid request', acGas / exactGas, 'x', conditions)
    report('seller gate own time per auth-capture request p50 (in the gate, less facilitator calls)', ao.p50, 'ms', {
      p99: round(ao.p99),
      exactP50: round(eo.p50),
      exactP99: round(eo.p99),
      ratioP50: round(ao.p50 / eo.p50),
      shareOfRequestP50: round(ao.p50 / a.p50),
    })
  } finally {
    globalThis.fetch = realFetch
    await closeSeller()
    await ours.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}
