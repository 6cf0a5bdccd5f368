import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { evm, Mppx } from 'mppx/server'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { checkSpend } from '../daemon/buyer/limits.js'
import { refusalOf } from '../daemon/buyer/policy/rules.js'
import { startDaemon } from '../daemon/main.js'
import { policyOf } from '../daemon/platform/store.js'
import { loadConfig } from '../src/config/load.js'
import { callJson } from '../src/sdk/http.js'
import { createPlatformClient } from '../src/sdk/platform/client.js'
import { paymentGate } from '../src/sdk/x402/seller/middleware.js'
import { report, summary } from './lib.js'

const PAYS = 30
const SENDS = 10
const LIMIT_CHECKS = 200
/** Pairs for the policy A/B: at 30 a pair the machine's noise was larger than the 5% being measured. */
const POLICY_PAIRS = Number(process.env.PARX_BENCH_POLICY_PAIRS ?? 100)
/**
 * `PARX_BENCH_EGRESS=strict`: the daemon's egress guard on as on testnet/mainnet, the two loopback
 * sellers admitted by egress.allow (README "Hosting safely"); pay figures carry `egress`.
 * `PARX_BENCH_PAY_ONLY=1`: the pay figures alone (an A/B of the guard, run back-to-back).
 */
const STRICT = process.env.PARX_BENCH_EGRESS === 'strict'
const PAY_ONLY = process.env.PARX_BENCH_PAY_ONLY === '1'

/**
 * The agent payments platform against an in-process daemon on the local profile (anvil automine,
 * SQLite store). Figures, one JSON line each:
 * - pay end-to-end (POST /pay to its answer: the seller's 402, the limit reservation, signing, the
 *   paid retry, verify and settle by our facilitator, the seller's answer) for x402 v2 (a PUSD
 *   erc2612 seller behind our payment gate) and MPP (a stock mppx evm charge server settling
 *   through our facilitator), p50 and p99;
 * - send request-to-receipt (POST /send answers once the receipt is in): local-base, a sponsored
 *   user operation through alto; local-radius, a direct transfer; p50 and p99;
 * - the limit check: the store transaction that reads the agent's limits and rolling-day spend and
 *   reserves (plus its release), and the pure policy check alone.
 * Sequential requests after one warm-up each; the figures are the platform's, on a shared machine.
 */
export async function benchPlatform(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'parx-bench-platform-'))
  const servers: Server[] = []
  const listen = async (handler: Parameters<typeof createServer>[1]) => {
    const s = createServer(handler)
    servers.push(s)
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r))
    return `http://127.0.0.1:${(s.address() as AddressInfo).port}`
  }
  // The sellers listen first, so a strict guard's allow-list can name their ports; their handlers come once the daemon is up.
  let x402Handler: Parameters<typeof createServer>[1] = (_req, res) => void res.end()
  let mppHandler: Parameters<typeof createServer>[1] = (_req, res) => void res.end()
  const x402Url = await listen((req, res) => x402Handler!(req, res))
  const mppUrl = await listen((req, res) => mppHandler!(req, res))
  const egress = STRICT ? { egress: { strict: true, allow: [new URL(x402Url).host, new URL(mppUrl).host] } } : {}
  const daemon = await startDaemon(
    loadConfig({ env: {}, file: {}, flags: { port: 0, dataDir, logLevel: 'warn', ...egress } }),
  )
  try {
    const api = daemon.urls.api
    const faucet = (network: string, to: string, token: string, amount: string) =>
      callJson(api, '/api/local/faucet', { body: { network, to, token, amount } })
    const op = createPlatformClient({ url: daemon.urls.platform, operatorToken: daemon.services.keys.operatorToken })
    const user = createPlatformClient({
      url: daemon.urls.platform,
      userKey: (await op.createUser({ body: { name: 'bench' } })).userKey,
    })
    const base = await user.createAgent({ body: { name: 'bench-base', network: 'local-base' } })
    const radius = await user.createAgent({ body: { name: 'bench-radius', network: 'local-radius' } })
    await faucet('local-base', base.wallet, 'PUSD', '100')
    await faucet('local-base', base.wallet, 'USDC', '100')
    await faucet('local-radius', radius.wallet, 'PUSD', '100')
    const payTo = privateKeyToAccount(generatePrivateKey()).address

    const gate = paymentGate({
      facilitator: { url: daemon.urls.facilitator },
      routes: {
        'GET /x402': { prices: [{ network: 'local-base', asset: 'PUSD', amount: '10000000000000000', payTo }] },
      },
    })
    x402Handler = (req, res) => void gate(req, res, () => res.end('{"ok":true}'))
    const usdc = daemon.services.base.tokens.USDC!
    const mppx = Mppx.create({
      secretKey: 'e'.repeat(64),
      realm: 'bench',
      methods: [
        evm.charge({
          currency: usdc.address,
          chainId: daemon.services.base.chainId,
          decimals: 6,
          authorization: usdc.permitDomain!,
          recipient: payTo,
          x402: { facilitator: daemon.urls.facilitator },
        }),
      ],
    })
    mppHandler = async (req, res) => {
      const r = await Mppx.toNodeListener(mppx.charge({ amount: '0.01' }))(req, res)
      if (r.status !== 402) res.end('{"ok":true}')
    }

    const timed = async (n: number, f: () => Promise<unknown>) => {
      await f() // warm-up
      const ms: number[] = []
      for (let i = 0; i < n; i++) {
        const t0 = performance.now()
        await f()
        ms.push(performance.now() - t0)
      }
      return summary(ms)
    }
    for (const [protocol, url] of [
      ['x402', `${x402Url}/x402`],
      ['mpp', `${mppUrl}/mpp`],
    ] as const) {
      const s = await timed(PAYS, () => user.pay({ params: { id: base.id }, body: { url, protocol } }))
      report(`platform pay ${protocol} end-to-end p50`, s.p50, 'ms', { n: s.n, egress: STRICT ? 'strict' : 'off' })
      report(`platform pay ${protocol} end-to-end p99`, s.p99, 'ms', { n: s.n, egress: STRICT ? 'strict' : 'off' })
    }
    await benchPolicyPay(user, faucet, `${x402Url}/x402`, payTo)
    await benchAlertsPay(op, daemon.urls.platform, faucet, `${x402Url}/x402`)
    if (PAY_ONLY) return
    for (const [network, agent] of [
      ['local-base', base],
      ['local-radius', radius],
    ] as const) {
      const to = privateKeyToAccount(generatePrivateKey()).address
      const s = await timed(SENDS, () =>
        user.send({ params: { id: agent.id }, body: { to, amount: '0.01', token: 'PUSD' } }),
      )
      report(`platform send ${network} request-to-receipt p50`, s.p50, 'ms', {
        n: s.n,
        method: network === 'local-base' ? 'userOperation' : 'transfer',
      })
      report(`platform send ${network} request-to-receipt p99`, s.p99, 'ms', { n: s.n })
    }

    const spends = daemon.services.platform.spends
    await user.setLimits({ params: { id: base.id }, body: { perPaymentUsd: '1000', dailyUsd: '100000' } })
    const reserve = await timed(LIMIT_CHECKS, async () => {
      const row = await spends.reserve({
        agentId: base.id,
        kind: 'pay',
        amountMicros: 10_000n,
        token: 'PUSD',
        amount: '0.01',
        host: '127.0.0.1',
      })
      await spends.release(row.id, 'bench')
    })
    report('platform limit check + reserve + release (store transaction) p50', reserve.p50, 'ms', {
      n: reserve.n,
      store: 'sqlite',
      spendsToday: PAYS * 2 + SENDS * 2 + 4,
    })
    const agentRow = (await daemon.services.platform.store.agent(base.id))!
    const policy = policyOf(agentRow)
    const state = await spends.budget(base.id)
    const t0 = performance.now()
    for (let i = 0; i < 100_000; i++)
      checkSpend(state, policy.allowedHosts, { amountMicros: 10_000n, host: '127.0.0.1' })
    report('platform limit policy check alone', ((performance.now() - t0) / 100_000) * 1000, 'us')
  } finally {
    for (const s of servers) await new Promise((r) => s.close(r))
    await daemon.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

/**
 * Issue 41 item 2's budget: x402 `pay` p50 of an agent under ten payee and network rules (ten
 * entries over its eight lists, all letting this seller through) within 5% of a bare agent's of the
 * same user (which has no rules), in one run. The two agents pay alternately, so load on the shared machine falls on both alike.
 */
async function benchPolicyPay(
  user: ReturnType<typeof createPlatformClient>,
  faucet: (network: string, to: string, token: string, amount: string) => Promise<unknown>,
  url: string,
  payTo: string,
): Promise<void> {
  const other = () => privateKeyToAccount(generatePrivateKey()).address
  const bare = await user.createAgent({ body: { name: 'bench-bare', network: 'local-base' } })
  const ruled = await user.createAgent({ body: { name: 'bench-ruled', network: 'local-base' } })
  for (const a of [bare, ruled]) await faucet('local-base', a.wallet, 'PUSD', '100')
  await user.setAgentPolicy({
    params: { id: ruled.id },
    body: {
      allowHosts: ['127.0.0.1'],
      denyHosts: ['*.blocked.test', 'bad.test'],
      allowPayTo: [payTo],
      denyPayTo: [other(), other()],
      allowNetworks: ['local-base'],
      denyNetworks: ['base'],
      allowTokens: ['PUSD'],
      denyTokens: ['XUSD'],
    },
  })
  const one = async (id: string) => {
    const t0 = performance.now()
    await user.pay({ params: { id }, body: { url, protocol: 'x402' } })
    return performance.now() - t0
  }
  await one(bare.id)
  await one(ruled.id)
  const ms = { bare: [] as number[], ruled: [] as number[] }
  // Which goes first alternates too: the second pay of a pair can wait on the first's settlement.
  for (let i = 0; i < POLICY_PAIRS; i++) {
    if (i % 2 === 0) {
      ms.bare.push(await one(bare.id))
      ms.ruled.push(await one(ruled.id))
    } else {
      ms.ruled.push(await one(ruled.id))
      ms.bare.push(await one(bare.id))
    }
  }
  const b = summary(ms.bare)
  const r = summary(ms.ruled)
  report('platform pay x402 p50, bare agent', b.p50, 'ms', { n: b.n })
  report('platform pay x402 p50, agent under 10 payee and network rules', r.p50, 'ms', { n: r.n })
  report('platform pay x402 p50 ratio, 10 rules / bare (budget 1.05)', r.p50 / b.p50, 'x', { n: r.n })
  // Each pair ran back to back under the same load, so the median of the pairs' ratios is the steadier figure.
  const pairRatios = ms.ruled.map((t, i) => t / ms.bare[i]!).sort((x, y) => x - y)
  report(
    'platform pay x402 median of paired ratios, 10 rules / bare (budget 1.05)',
    pairRatios[Math.floor(pairRatios.length / 2)]!,
    'x',
    { n: pairRatios.length },
  )
  // The decision alone, which is all the rules add to a pay besides one indexed read of at most two rows.
  const rules = await user.getAgentPolicy({ params: { id: ruled.id } })
  const scoped = { agent: rules.rules, user: rules.userRules }
  const payee = {
    host: '127.0.0.1',
    payTo,
    network: { key: 'local-base', caip2: 'eip155:0' },
    tokens: [{ symbol: 'PUSD' }],
  }
  const t0 = performance.now()
  for (let i = 0; i < 100_000; i++) refusalOf(scoped, payee)
  report('platform payee rules check alone (10 rules)', ((performance.now() - t0) / 100_000) * 1000, 'us')
}

/**
 * Issue 41 item 5's cost: x402 `pay` p50 of an agent whose user has one alert rule of each kind
 * (evaluated around every pay: the reads of each rule, no alert firing after the first pays) against
 * an agent of a user with no alert rules (no read at all: the replica's one-second rules cache), in
 * one run, alternating as benchPolicyPay does.
 */
async function benchAlertsPay(
  op: ReturnType<typeof createPlatformClient>,
  platformUrl: string,
  faucet: (network: string, to: string, token: string, amount: string) => Promise<unknown>,
  url: string,
): Promise<void> {
  const userOf = async (name: string) =>
    createPlatformClient({ url: platformUrl, userKey: (await op.createUser({ body: { name } })).userKey })
  const [plain, alerted] = [await userOf('bench-no-alerts'), await userOf('bench-alerts')]
  const bare = await plain.createAgent({ body: { name: 'bench-bare', network: 'local-base' } })
  const watched = await alerted.createAgent({ body: { name: 'bench-watched', network: 'local-base' } })
  for (const a of [bare, watched]) await faucet('local-base', a.wallet, 'PUSD', '100')
  await alerted.setUserLimits({ body: { monthlyUsd: '100000' } })
  for (const body of [
    { kind: 'budget', percent: 80, window: 'month' },
    { kind: 'payment_above', usd: '1000' },
    { kind: 'new_payee' },
    { kind: 'refusals', count: 3, withinMinutes: 10 },
    { kind: 'spend_rate', factor: '3', period: 'day' },
  ] as const)
    await alerted.createAlertRule({ body })
  const one = async (client: typeof plain, id: string) => {
    const t0 = performance.now()
    await client.pay({ params: { id }, body: { url, protocol: 'x402' } })
    return performance.now() - t0
  }
  await one(plain, bare.id)
  await one(alerted, watched.id)
  const ms = { bare: [] as number[], watched: [] as number[] }
  for (let i = 0; i < PAYS; i++) {
    if (i % 2 === 0) {
      ms.bare.push(await one(plain, bare.id))
      ms.watched.push(await one(alerted, watched.id))
    } else {
      ms.watched.push(await one(alerted, watched.id))
      ms.bare.push(await one(plain, bare.id))
    }
  }
  const b = summary(ms.bare)
  const w = summary(ms.watched)
  report('platform pay x402 p50, user without alert rules', b.p50, 'ms', { n: b.n })
  report('platform pay x402 p50, user with 5 alert rules (one per kind)', w.p50, 'ms', { n: w.n })
  report('platform pay x402 p50 ratio, 5 alert rules / none', w.p50 / b.p50, 'x', { n: w.n })
}
