import { readFileSync } from 'node:fs'
import { request } from 'node:http'
import { join } from 'node:path'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TOKEN_A, USDC } from '../src/networks/registry.js'
import { createPlatformClient } from '../src/sdk/platform/client.js'
import { until } from './helpers/api-calls.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { parseScrape } from './helpers/prometheus.js'
import { newUser } from './helpers/swap-users.js'
import { eip3009Body, evmPayer, localBase, randomAddress, requirements, settle, verify } from './helpers/x402.js'

/**
 * docs/operations.md "Metrics" and "Request ids" against a real daemon: real traffic (an x402
 * settle, a Base swap, an agent's send), then GET /metrics with the operator token, read with a
 * Prometheus text parser; the same exposition on --metrics-port; request ids on answers, in error
 * bodies and on the log lines of parx.log.
 */
let d: TestDaemon
beforeAll(async () => {
  d = await startTestDaemon({ flags: { logLevel: 'info', metrics: { port: 0 } } })
}, 120_000)
afterAll(async () => d?.close())

/** On PostgreSQL the worker lock is won a moment after start (daemon/worker/leader.ts): wait for readiness to say so. */
const leading = () =>
  until(
    () => d.raw('/api/readiness'),
    (r) => r.body.leader === true,
    'worker leadership',
    20_000,
  )

const scrape = async () => {
  const r = await fetch(`${d.urls.api}/metrics`, { headers: d.operatorHeaders() })
  expect(r.status).toBe(200)
  expect(r.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/)
  return parseScrape(await r.text())
}

describe('GET /metrics', () => {
  it('counts real traffic: HTTP by route template, facilitator settle, swap relays, platform send, and the scrape-time gauges', async () => {
    // x402: one verify and one settle on local-base
    const payer = await evmPayer(d, ['USDC'], '10')
    const body = await eip3009Body(
      d,
      payer,
      requirements(d, { symbol: 'USDC', amount: '1', payTo: randomAddress(), method: 'eip3009' }),
    )
    expect(await verify(d, body)).toMatchObject({ isValid: true })
    expect((await settle(d, body)).body).toMatchObject({ success: true })
    // a Base swap, accepted
    const u = await newUser(d, await d.partnerKey(), { [USDC]: '5' })
    expect(await u.parx.swap({ in: USDC, out: TOKEN_A, amount: '2' })).toMatchObject({ status: 'submitted' })
    // an agent's send on local-radius (a direct transfer), and one refused
    const op = createPlatformClient({ url: d.urls.platform, operatorToken: d.services.keys.operatorToken })
    const { userKey } = await op.createUser({ body: { name: 'metrics' } })
    const user = createPlatformClient({ url: d.urls.platform, userKey })
    const a = await user.createAgent({ body: { name: 'm', network: 'local-radius' } })
    await d.call('/api/local/faucet', { body: { network: 'local-radius', to: a.wallet, token: 'PUSD', amount: '3' } })
    const to = privateKeyToAccount(generatePrivateKey()).address
    await user.send({ params: { id: a.id }, body: { to, amount: '1' } })
    await expect(user.send({ params: { id: a.id }, body: { to, amount: '50' } })).rejects.toMatchObject({
      code: 'INSUFFICIENT_BALANCE',
    })

    await leading()
    const s = await scrape()
    const http = s.samples('parx_http_request_duration_seconds_count')
    const count = (route: string, status: string, method = 'POST') =>
      http
        .filter((x) => x.labels.route === route && x.labels.status === status && x.labels.method === method)
        .reduce((n, x) => n + x.value, 0)
    expect(s.families.get('parx_http_request_duration_seconds')?.type).toBe('HISTOGRAM')
    expect(count('/facilitator/settle', '200')).toBe(1)
    expect(http.find((x) => x.labels.route === '/facilitator/settle')?.labels.surface).toBe('facilitator')
    expect(count('/api/agents/:id/send', '200')).toBe(1)
    // The template, never the URL: no series names an agent id.
    expect(http.some((x) => x.labels.route!.includes(a.id))).toBe(false)

    const network = localBase(d).caip2
    expect(s.samples('parx_facilitator_request_duration_seconds_count')).toEqual(
      expect.arrayContaining([
        { labels: { operation: 'verify', network, scheme: 'exact', outcome: 'valid' }, value: 1 },
        { labels: { operation: 'settle', network, scheme: 'exact', outcome: 'success' }, value: 1 },
      ]),
    )
    expect(
      s.samples('parx_facilitator_settlement_batch_size_count').reduce((n, x) => n + x.value, 0),
    ).toBeGreaterThanOrEqual(1)
    expect(s.samples('parx_swap_relays_total')).toEqual(
      expect.arrayContaining([{ labels: { outcome: 'accepted' }, value: 1 }]),
    )
    expect(s.samples('parx_platform_operations_total')).toEqual(
      expect.arrayContaining([
        { labels: { operation: 'send', outcome: 'ok' }, value: 1 },
        { labels: { operation: 'send', outcome: 'INSUFFICIENT_BALANCE' }, value: 1 },
      ]),
    )
    // Read at scrape time: the outbox (the settle and the swap were recorded before broadcast), the
    // webhook queue, the orders, leadership (the one process leads), the pool, each chain's head.
    expect(
      s
        .samples('parx_outbox_rows')
        .map((x) => x.labels.state)
        .sort(),
    ).toEqual(['failed', 'included', 'sent'])
    expect(s.samples('parx_outbox_rows').reduce((n, x) => n + x.value, 0)).toBeGreaterThanOrEqual(2)
    expect(s.samples('parx_webhook_queue_depth')).toEqual([{ labels: {}, value: 0 }])
    expect(s.families.has('parx_webhook_queue_oldest_age_seconds')).toBe(true)
    expect(s.families.has('parx_xchain_orders')).toBe(true)
    expect(s.samples('parx_worker_leader')).toEqual([{ labels: {}, value: 1 }])
    expect(s.samples('parx_store_pool_connections').length).toBeGreaterThanOrEqual(1)
    const heads = new Map(s.samples('parx_chain_head_height').map((x) => [x.labels.network, x.value]))
    for (const network of [...Object.keys(d.services.evm), d.services.solana.key]) {
      expect(heads.get(network), network).toBeGreaterThan(0)
    }
    expect(s.samples('parx_chain_rpc_latency_seconds').length).toBe(heads.size)
    expect(s.families.has('process_cpu_user_seconds_total')).toBe(true)
    expect(s.families.has('nodejs_eventloop_lag_seconds')).toBe(true)
  }, 180_000)

  it('answers 401 without the operator token, and to a partner key', async () => {
    const none = await d.raw('/metrics')
    expect(none.status).toBe(401)
    expect(none.body).toMatchObject({ code: 'UNAUTHORIZED', requestId: expect.any(String) })
    const partner = await d.raw('/metrics', { headers: { 'x-api-key': await d.partnerKey() } })
    expect(partner.status).toBe(401)
  })

  it('serves the same exposition without a token on --metrics-port, and nothing else there', async () => {
    expect(d.urls.metrics).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/)
    await leading()
    const r = await fetch(d.urls.metrics!)
    expect(r.status).toBe(200)
    const s = parseScrape(await r.text())
    expect(s.families.get('parx_http_request_duration_seconds')?.type).toBe('HISTOGRAM')
    expect(s.samples('parx_worker_leader')).toEqual([{ labels: {}, value: 1 }])
    expect((await fetch(d.urls.metrics!.replace('/metrics', '/api/health'))).status).toBe(404)
  })
})

describe('X-Request-Id', () => {
  const logLines = () =>
    readFileSync(join(d.dataDir, 'parx.log'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>)

  it("returns the caller's id on a success and in an error body, and logs the lines the request caused with it", async () => {
    const ok = await d.raw('/api/health', { headers: { 'x-request-id': 'client-ok-1' } })
    expect([ok.status, ok.headers.get('x-request-id')]).toEqual([200, 'client-ok-1'])
    const bad = await d.raw('/api/operator/keys', {
      method: 'POST',
      headers: { ...d.operatorHeaders(), 'content-type': 'application/json', 'x-request-id': 'my-payment-failed-42' },
      body: JSON.stringify({}),
    })
    expect(bad.status).toBe(400)
    expect(bad.headers.get('x-request-id')).toBe('my-payment-failed-42')
    expect(bad.body).toMatchObject({
      code: 'BAD_REQUEST',
      error: expect.any(String),
      requestId: 'my-payment-failed-42',
    })
    const notFound = await d.raw('/api/nowhere', { headers: { 'x-request-id': 'lost-7' } })
    expect([notFound.status, notFound.headers.get('x-request-id'), notFound.body.requestId]).toEqual([
      404,
      'lost-7',
      'lost-7',
    ])
    // pino writes asynchronously: the line is there within moments.
    let lines: Array<Record<string, unknown>> = []
    for (let i = 0; i < 50 && !lines.length; i++) {
      await new Promise((r) => setTimeout(r, 100))
      lines = logLines().filter((l) => l.requestId === 'my-payment-failed-42')
    }
    expect(lines).toEqual([
      expect.objectContaining({
        msg: 'request refused',
        code: 'BAD_REQUEST',
        path: '/api/operator/keys',
        requestId: 'my-payment-failed-42',
      }),
    ])
  })

  it('names each line by the request it belongs to, with two requests in flight at once', async () => {
    // A's body is held back while B is served whole, so A's line is written after B's: a request id
    // kept anywhere but in A's own async context (a module variable, the last request seen) names B.
    const url = new URL(`${d.urls.api}/api/operator/keys`)
    const a = request(url, {
      method: 'POST',
      headers: {
        ...d.operatorHeaders(),
        'content-type': 'application/json',
        'x-request-id': 'held-back-a',
        'content-length': '2',
      },
    })
    const answered = new Promise<number>(
      (resolve, reject) => (a.on('response', (res) => (res.resume(), resolve(res.statusCode!))), a.on('error', reject)),
    )
    a.flushHeaders()
    const refusal = (id: string) =>
      logLines().filter((l) => l.msg === 'request refused' && l.path === '/api/operator/keys' && l.requestId === id)
    // A's headers are on the wire; the daemon starts serving it (and waits for its body) meanwhile.
    await new Promise((resolve) => a.once('socket', (sock) => sock.once('connect', resolve)))
    await new Promise((resolve) => setTimeout(resolve, 300))
    const b = await d.raw('/api/operator/keys', {
      method: 'POST',
      headers: { ...d.operatorHeaders(), 'content-type': 'application/json', 'x-request-id': 'served-first-b' },
      body: '{}',
    })
    expect(b.status).toBe(400)
    await until(
      async () => refusal('served-first-b'),
      (l) => l.length === 1,
      "B's line",
      20_000,
    )
    a.end('{}')
    expect(await answered).toBe(400)
    await until(
      async () => refusal('held-back-a'),
      (l) => l.length === 1,
      "A's line, with A's id",
      20_000,
    )
    // Each request's id is on its own line only.
    expect(logLines().filter((l) => l.requestId === 'served-first-b')).toHaveLength(1)
    expect(logLines().filter((l) => l.requestId === 'held-back-a')).toHaveLength(1)
  })

  it('replaces an id that is not sane with a new one', async () => {
    for (const id of ['has spaces', 'x'.repeat(200), 'semi;colon']) {
      const r = await d.raw('/api/nowhere', { headers: { 'x-request-id': id } })
      const got = r.headers.get('x-request-id')
      expect(got).toMatch(/^req_[0-9a-f]{20}$/)
      expect(r.body.requestId).toBe(got)
    }
  })
})
