import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { x402Client } from '@x402/core/client'
import { decodePaymentResponseHeader } from '@x402/core/http'
import { HTTPFacilitatorClient } from '@x402/core/server'
import { toClientEvmSigner } from '@x402/evm'
import {
  BatchSettlementEvmScheme as BatchClient,
  createBatchSettlementEIP3009DepositPayload,
  signVoucher,
} from '@x402/evm/batch-settlement/client'
import { ExactEvmScheme as ExactClient } from '@x402/evm/exact/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import { type Address, createPublicClient, defineChain, type Hex, http, type PublicClient } from 'viem'
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'
import { channelIdOf } from '../src/sdk/x402/evm/batch-settlement/contracts.js'
import type { SupportedResponse } from '../src/sdk/x402/types.js'
import { officialSeller } from '../test/helpers/official-seller.js'
import { childrenCpuMs, cpuMs, daemonSettled, faucetUsdc, fundedAccount, report, spawnServe, summary } from './lib.js'
import { payer } from './x402-payer.js'

/** Paid requests per scheme; the batch-settlement gas over them is deposit + claim + settle. */
const REQUESTS = 100
/** Buyers whose channels one claim transaction takes, for claims per transaction. */
const CHANNELS = 20
/**
 * Of the REQUESTS-1 after the deposit, the first of each scheme are paid but not timed: both paths
 * then meet a warm process (JIT-compiled hashing and curve code) and a daemon whose executor has
 * settled, so the p50 is the steady state a seller serves in, for vouchers as for exact.
 */
const UNTIMED = 10
/**
 * Rounds of both schemes paid first, to another seller by other buyers (nothing of them is timed,
 * counted or claimed here), so the official client and server, which the voucher's time is almost
 * all of, are JIT-warm as in a process that has served for a while: in three interleaved pairs of
 * runs, voucher p50 11.61 / 11.83 / 10.56 -> 10.06 / 11.18 / 9.19 ms, exact 21.99 / 22.78 / 21.20
 * -> 20.68 / 21.53 / 20.20 ms. The settlement contract then already holds USDC, so the measured
 * deposit writes no fresh balance slot: ~17k gas less over the 100 requests.
 */
const WARMUP = 200
const PRICE = '1000' // 0.001 USDC, the per-request maximum
/** The batch buyer's one deposit: every request with a margin (the official client tops up before its balance is quite spent). */
const DEPOSIT = BigInt(PRICE) * BigInt(REQUESTS + 10)
const network = (chainId: number) => `eip155:${chainId}` as const

/**
 * x402 batch-settlement through parx's facilitator against one `exact` payment, in one run, both
 * with the official packages unchanged (@x402/express seller, @x402/fetch buyer holding USDC and
 * no ETH, @x402/evm's schemes): a voucher-paid request's p50/p99 against an exact request's (the
 * two interleaved, so both meet the same chain and the same load); gas per paid request over
 * REQUESTS requests (the deposit, the claim and the settle, summed, over REQUESTS) against exact's
 * (its settlement transactions over REQUESTS); and how many channels one claim transaction takes
 * (CHANNELS buyers claimed by the channel manager at once). Targets (issue 27): voucher p50 at
 * most 0.5x exact's, gas at most 1/5 of exact's.
 * cpuMsPerRequest says where a request's time goes: a voucher request makes no facilitator and no
 * JSON-RPC call (facilitatorCallsPerRequest, rpcCallsPerRequest), so its time is this process's
 * CPU: the official client (the 402, a voucher signed, the answer checked) and the official server
 * (the voucher's signer recovered, the channel id hashed again); measured in session 14, that was
 * more CPU than exact's client and server use, whose extra time is the daemon's verify and settle.
 */
export async function benchBatchSettlement(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'parx-bench-batch-'))
  const ours = await spawnServe(['--data-dir', dataDir, '--fresh', '--log-level', 'warn'])
  let closeSeller = async () => {}
  const realFetch = globalThis.fetch
  try {
    const urls = ours.ready.urls as { api: string; facilitator: string; rpc: Record<string, string> }
    const supported = (await (await fetch(`${urls.facilitator}/supported`)).json()) as SupportedResponse
    const baseRpc = Object.entries(urls.rpc).find(([k]) => k.endsWith('base'))![1]
    const chainId = await createPublicClient({ transport: http(baseRpc) }).getChainId()
    const kind = supported.kinds.find(
      (k) => k.scheme === 'batch-settlement' && k.network === network(chainId) && k.extra?.symbol === 'USDC',
    )!
    const usdc = {
      address: kind.extra!.asset as Address,
      name: String(kind.extra!.name),
      version: String(kind.extra!.version),
    }
    const chain = defineChain({
      id: chainId,
      name: 'local-base',
      nativeCurrency: { name: 'ETH', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [baseRpc] } },
    })
    const client = createPublicClient({ chain, transport: http(baseRpc) }) as PublicClient

    const payTo = privateKeyToAccount(generatePrivateKey()).address
    const facilitator = new HTTPFacilitatorClient({ url: urls.facilitator })
    const routes = { '/exact': { scheme: 'exact' as const, amount: PRICE }, '/batch': { amount: PRICE } }
    const official = await officialSeller({ facilitator, network: network(chainId), payTo, token: usdc, routes })
    closeSeller = official.close
    const seller = official.url
    const manager = official.manager

    const funded = () => fundedAccount(urls.api)
    // The official buyer deposits at most depositMultiplier (default 5) x its per-payment cap: this cap lets one deposit cover every request.
    const spendControls = {
      allowedAssets: [{ network: network(chainId), asset: usdc.address, maxAmountPerPayment: String(DEPOSIT / 5n) }],
    }
    const batchBuyer = (a: PrivateKeyAccount, deposit: string) =>
      wrapFetchWithPayment(
        fetch,
        x402Client.fromConfig({
          schemes: [
            {
              network: 'eip155:*',
              client: new BatchClient(toClientEvmSigner(a, client as never), { depositStrategy: () => deposit }),
            },
          ],
          spendControls,
        }),
      )
    const exactBuyer = (a: PrivateKeyAccount) =>
      wrapFetchWithPayment(
        fetch,
        x402Client.fromConfig({
          schemes: [{ network: 'eip155:*', client: new ExactClient(toClientEvmSigner(a, client as never)) }],
          spendControls: false,
        }),
      )
    // Facilitator calls the seller makes per request kind (a voucher the official server verifies locally makes none), and
    // JSON-RPC calls to the daemon's chain endpoint the official client or server make (viem's http transport fetches).
    const calls: Record<string, number> = {}
    let current = ''
    globalThis.fetch = ((input: Parameters<typeof fetch>[0], init?: RequestInit) => {
      const url = String(input instanceof Request ? input.url : input)
      if (url.startsWith(urls.facilitator) && !url.endsWith('/supported')) calls[current] = (calls[current] ?? 0) + 1
      if (url.startsWith(baseRpc)) calls[`rpc ${current}`] = (calls[`rpc ${current}`] ?? 0) + 1
      return realFetch(input, init)
    }) as typeof fetch
    // CPU per request kind, read outside the timed span: this process (the official client and server), the daemon, its children (anvil, alto).
    const daemonPid = ours.child.pid!
    type CpuUse = { bench: number; daemon: number; children: number }
    const cpu: Record<string, CpuUse & { n: number }> = {}
    const paid = async (pay: typeof fetch, path: string) => {
      current = path
      const c0 = process.cpuUsage(),
        d0 = cpuMs(daemonPid),
        a0 = childrenCpuMs(daemonPid)
      const t = performance.now()
      const r = await pay(`${seller}${path}`)
      const ms = performance.now() - t
      await r.arrayBuffer()
      const c = process.cpuUsage(c0)
      const used = {
        bench: (c.user + c.system) / 1000,
        daemon: cpuMs(daemonPid) - d0,
        children: childrenCpuMs(daemonPid) - a0,
      }
      if (r.status !== 200) throw new Error(`${path} answered ${r.status}`)
      const header = r.headers.get('payment-response')
      return { ms, used, tx: header ? decodePaymentResponseHeader(header).transaction : '' }
    }
    const count = (path: string, used: CpuUse) => {
      const k = (cpu[path] ??= { bench: 0, daemon: 0, children: 0, n: 0 })
      k.bench += used.bench
      k.daemon += used.daemon
      k.children += used.children
      k.n++
    }
    const gasOf = async (txs: string[]) => {
      let gas = 0n
      for (const hash of new Set(txs.filter(Boolean)))
        gas += (await client.getTransactionReceipt({ hash: hash as Hex })).gasUsed
      return gas
    }

    // One buyer each: the batch one deposits on its first request (enough for all of them), then pays by voucher.
    const payBatch = batchBuyer(await funded(), String(DEPOSIT))
    const payExact = exactBuyer(await funded())
    for (let i = 0; i < 3; i++) await paid(payExact, '/exact') // the daemon's first settles prepare its executor
    // The warm-up (WARMUP): its own seller, so the channel manager below never sees its channel.
    {
      const warmPayTo = privateKeyToAccount(generatePrivateKey()).address
      const warm = await officialSeller({
        facilitator,
        network: network(chainId),
        payTo: warmPayTo,
        token: usdc,
        routes,
      })
      const close = closeSeller
      closeSeller = async () => void (await Promise.all([close(), warm.close()]))
      const warmBatch = batchBuyer(await funded(), String(DEPOSIT)),
        warmExact = exactBuyer(await funded())
      current = 'warmup'
      for (let i = 0; i < WARMUP; i++) {
        for (const [pay, path] of [
          [warmBatch, '/batch'],
          [warmExact, '/exact'],
        ] as const) {
          const r = await pay(`${warm.url}${path}`)
          if (r.status !== 200) throw new Error(`warm-up ${path} answered ${r.status}`)
          await r.arrayBuffer()
        }
      }
    }
    const settledAfterMs = await daemonSettled(daemonPid)
    const exactWarm = 3
    const deposit = await paid(payBatch, '/batch')
    const voucherMs: number[] = [],
      exactMs: number[] = [],
      exactTxs: string[] = []
    // Requests that went on chain (a top-up deposit): their gas counts, their time is not a voucher's.
    const batchTxs = [deposit.tx]
    for (let i = 1; i < REQUESTS; i++) {
      // Alternating which goes first, so neither always meets the chain right after the other's transaction.
      const order = i % 2 ? ['/batch', '/exact'] : ['/exact', '/batch']
      for (const path of order) {
        const r = await paid(path === '/batch' ? payBatch : payExact, path)
        const timed = i > UNTIMED
        if (path === '/batch') {
          if (r.tx) batchTxs.push(r.tx)
          else if (timed) {
            voucherMs.push(r.ms)
            count(path, r.used)
          }
        } else {
          exactTxs.push(r.tx)
          if (timed) {
            exactMs.push(r.ms)
            count(path, r.used)
          }
        }
      }
    }
    exactTxs.push((await paid(payExact, '/exact')).tx)
    const callsPer = {
      voucher: round((calls['/batch'] ?? 0) / REQUESTS),
      exact: round((calls['/exact'] ?? 0) / (REQUESTS + exactWarm)),
    }
    const rpcCallsPer = {
      voucher: round((calls['rpc /batch'] ?? 0) / REQUESTS),
      exact: round((calls['rpc /exact'] ?? 0) / (REQUESTS + exactWarm)),
    }
    const cpuPer = (k?: CpuUse & { n: number }) =>
      k ? { bench: round(k.bench / k.n), daemon: round(k.daemon / k.n), children: round(k.children / k.n) } : {}
    const cpuMsPerRequest = { voucher: cpuPer(cpu['/batch']), exact: cpuPer(cpu['/exact']) }
    const out = await manager.claimAndSettle()
    const batchGas = await gasOf([...batchTxs, ...out.claims.map((c) => c.transaction), out.settle?.transaction ?? ''])
    const exactGas = await gasOf(exactTxs)
    const v = summary(voucherMs),
      e = summary(exactMs)
    // The machine's load when the figures were taken, read rather than assumed (2 cores: the client, server and daemon share them).
    const conditions = { requests: REQUESTS, loadAverage1m: round(loadavg()[0]!), daemonSettledAfterMs: settledAfterMs }
    report('batch-settlement voucher request p50 (official client+server, our facilitator)', v.p50, 'ms', {
      p99: round(v.p99),
      n: v.n,
      untimed: UNTIMED,
      deposits: batchTxs.length,
    })
    report('exact request p50 (official client+server, our facilitator)', e.p50, 'ms', {
      p99: round(e.p99),
      n: e.n,
      untimed: UNTIMED,
      warmup: exactWarm,
    })
    report('batch-settlement voucher p50 / exact p50', v.p50 / e.p50, 'x', {
      target: '<= 0.5',
      p99Ratio: round(v.p99 / e.p99),
      facilitatorCallsPerRequest: callsPer,
      rpcCallsPerRequest: rpcCallsPer,
      cpuMsPerRequest,
      ...conditions,
    })
    report('batch-settlement deposit request', deposit.ms, 'ms')
    const perBatch = Number(batchGas) / REQUESTS,
      perExact = Number(exactGas) / REQUESTS
    report('batch-settlement gas per paid request (deposit + claim + settle) / requests', perBatch, 'gas', {
      total: Number(batchGas),
      claims: out.claims.length,
      settled: Boolean(out.settle?.transaction),
    })
    report('exact gas per paid request', perExact, 'gas', {
      total: Number(exactGas),
      transactions: new Set(exactTxs).size,
    })
    report('batch-settlement gas / exact gas per paid request', perBatch / perExact, 'x', {
      target: '<= 0.2',
      ...conditions,
    })

    // Our facilitator's own cost: POST /verify of a voucher (a signature check and one state read)
    // against /verify of an exact payment (signature, balance, simulation), interleaved.
    const verifyAt = async (body: unknown) => {
      const t = performance.now()
      const r = await realFetch(`${urls.facilitator}/verify`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
      const ok = ((await r.json()) as { isValid?: boolean }).isValid
      if (!ok) throw new Error('a benchmark payment did not verify')
      return performance.now() - t
    }
    const voucherAccount = await funded()
    const signer = toClientEvmSigner(voucherAccount, client as never)
    const r = {
      scheme: 'batch-settlement',
      network: network(chainId),
      amount: PRICE,
      asset: usdc.address,
      payTo,
      maxTimeoutSeconds: 3600,
      extra: {
        receiverAuthorizer: kind.extra!.receiverAuthorizer,
        withdrawDelay: 900,
        name: usdc.name,
        version: usdc.version,
      },
    }
    const config = {
      payer: voucherAccount.address,
      payerAuthorizer: voucherAccount.address,
      receiver: payTo,
      receiverAuthorizer: kind.extra!.receiverAuthorizer as Address,
      token: usdc.address,
      withdrawDelay: 900,
      salt: `0x${'00'.repeat(31)}01` as Hex,
    }
    const dep = await createBatchSettlementEIP3009DepositPayload(signer, 2, r as never, config, String(DEPOSIT), PRICE)
    await realFetch(`${urls.facilitator}/settle`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        x402Version: 2,
        paymentPayload: { x402Version: 2, accepted: r, payload: dep.payload },
        paymentRequirements: r,
      }),
    })
    const exactPayer = payer(
      { network: network(chainId), asset: usdc.address, name: usdc.name, version: usdc.version, chainId },
      payTo,
      BigInt(PRICE),
    )
    await faucetUsdc(urls.api, exactPayer.address)
    const channelId = channelIdOf(config, chainId)
    const voucherVerify: number[] = [],
      exactVerify: number[] = []
    for (let i = 1; i <= REQUESTS; i++) {
      const voucher = await signVoucher(signer, channelId, String(BigInt(PRICE) * BigInt(i)), network(chainId))
      voucherVerify.push(
        await verifyAt({
          x402Version: 2,
          paymentPayload: { x402Version: 2, accepted: r, payload: { type: 'voucher', channelConfig: config, voucher } },
          paymentRequirements: r,
        }),
      )
      exactVerify.push(await verifyAt(await exactPayer.sign()))
    }
    const vv = summary(voucherVerify),
      ev = summary(exactVerify)
    report('our facilitator: voucher /verify p50', vv.p50, 'ms', {
      p99: round(vv.p99),
      exactVerifyP50: round(ev.p50),
      exactVerifyP99: round(ev.p99),
      ratioP50: round(vv.p50 / ev.p50),
      n: vv.n,
    })

    // Many channels, one claim: CHANNELS buyers deposit and pay once each; the manager claims them together.
    for (let i = 0; i < CHANNELS; i++) {
      const pay = batchBuyer(await funded(), String(BigInt(PRICE) * 2n))
      await paid(pay, '/batch')
      await paid(pay, '/batch')
    }
    const claims = await manager.claim()
    const rows = claims.reduce((n, c) => n + c.vouchers, 0)
    const claimGas = await gasOf(claims.map((c) => c.transaction))
    report('batch-settlement claims per claim transaction', rows / claims.length, 'claims/tx', {
      channels: rows,
      transactions: claims.length,
      gasPerClaim: Math.round(Number(claimGas) / rows),
    })
  } finally {
    globalThis.fetch = realFetch
    await closeSeller()
    await ours.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

const round = (x: number) => Math.round(x * 100) / 100
