import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { getPriority, setPriority, tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { routes } from '../daemon/http/routes/index.js'
import { body, prng, queryString, type Rng, rpcBody } from './helpers/fuzz-requests.js'
import { healthProbe, p99 } from './helpers/health-probe.js'
import { heapProbe, INSPECT_FLAG } from './helpers/heap-probe.js'
import { rawHttp } from './helpers/raw-http.js'
import { serveReady } from './helpers/serve-process.js'

const SEED = 14_2026
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 10_000)
const CONCURRENCY = 6

const dataDir = mkdtempSync(join(tmpdir(), 'parx-fuzz-'))
let daemon: Awaited<ReturnType<typeof serveReady>>
let api: string
let rpc: string
let partnerKey: string
let operatorToken: string

beforeAll(async () => {
  // The daemon's inspector, for the memory readings after a full collection (heap-probe.ts).
  const nodeOptions = process.env.NODE_OPTIONS
  process.env.NODE_OPTIONS = [INSPECT_FLAG, process.env.FUZZ_DAEMON_NODE_OPTIONS].filter(Boolean).join(' ')
  daemon = await serveReady(['--data-dir', dataDir, '--port', '0']).finally(() => {
    if (nodeOptions === undefined) delete process.env.NODE_OPTIONS
    else process.env.NODE_OPTIONS = nodeOptions
  })
  api = daemon.ready.urls.api
  rpc = daemon.ready.urls.rpc['local-solana']
  operatorToken = JSON.parse(readFileSync(join(dataDir, 'keys.json'), 'utf8')).operatorToken
  const created = await fetch(`${api}/api/operator/keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${operatorToken}` },
    body: JSON.stringify({ name: 'fuzz', owner: '0x00000000000000000000000000000000000000aa' }),
  })
  partnerKey = ((await created.json()) as { key: string }).key
})
afterAll(async () => {
  await daemon?.stop()
  rmSync(dataDir, { recursive: true, force: true })
})

const described = new Map<number, string>()
type Finding = { what: string; status: number; body: string }

function authHeaders(r: Rng): Record<string, string> {
  switch (r.int(6)) {
    case 0:
      return { 'x-api-key': partnerKey }
    case 1:
      return { 'x-api-key': r.pick(['', 'x', `${partnerKey.slice(0, -1)}0`, 'a'.repeat(8_000)]) }
    case 2:
      return { authorization: `Bearer ${operatorToken}` }
    case 3:
      return { authorization: r.pick(['Bearer ', 'Basic x', `Bearer ${partnerKey}`, 'Bearer '.repeat(500)]) }
    default:
      return {}
  }
}

/** One seeded request to the API or the facilitator; returns a finding when the answer breaks the rules. */
async function apiRequest(r: Rng, i: number): Promise<Finding | undefined> {
  const def = r.pick(routes)
  const method = r.chance(0.9) ? def.method : r.pick(['GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'OPTIONS'])
  let path = def.path.replace(':id', r.pick(['1', 'x', '%00', 'a'.repeat(300), '..%2f..%2f']))
  if (r.chance(0.05)) path = `${path}/${r.pick(['x', '..', '%2e%2e', ''])}`
  const q = r.chance(method === 'GET' ? 0.9 : 0.2) ? `?${queryString(r)}` : ''
  const headers: Record<string, string> = { ...authHeaders(r) }
  if (r.chance(0.9))
    headers['content-type'] = r.pick([
      'application/json',
      'application/json',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
    ])
  const sendsBody = method !== 'GET' && method !== 'OPTIONS'
  const sent = sendsBody ? body(r) : undefined
  const what = `#${i} ${method} ${path}`
  described.set(i, `${what} ${(sent ?? q).slice(0, 120)}`)
  let res: Response
  let text: string
  try {
    res = await fetch(`${api}${path}${q}`, { method, headers, body: sent })
    text = await res.text()
  } catch (e) {
    return {
      what: `${what} (${(e as Error).cause ?? e})`,
      status: 0,
      body: `query ${q.length} bytes, body ${sent?.length ?? 0} bytes: ${(sent ?? q).slice(0, 200)}`,
    }
  }
  if (res.status >= 500) return { what, status: res.status, body: text.slice(0, 300) }
  if (res.status >= 400) {
    let json: Record<string, unknown>
    try {
      json = JSON.parse(text)
    } catch {
      return { what: `${what} (not JSON)`, status: res.status, body: text.slice(0, 300) }
    }
    // { error, code } and the request id the answer's header names (docs/operations.md "Request ids").
    const parxError =
      Object.keys(json).sort().join() === 'code,error,requestId' &&
      typeof json.error === 'string' &&
      typeof json.code === 'string' &&
      json.requestId === res.headers.get('x-request-id')
    // x402's own failure shape on /settle (the protocol's, docs/facilitator.md "x402 facilitator").
    const x402Failure = path === '/facilitator/settle' && json.success === false && typeof json.errorReason === 'string'
    if (!parxError && !x402Failure)
      return { what: `${what} (not { error, code })`, status: res.status, body: text.slice(0, 300) }
  }
  return undefined
}

async function rpcCall(r: Rng, i: number): Promise<Finding | undefined> {
  const payload = rpcBody(r)
  const what = `#${i} rpc`
  described.set(i, `${what} ${payload.length} ${payload.slice(0, 120)}`)
  let res: Response
  let text: string
  try {
    const method = r.chance(0.97) ? 'POST' : r.pick(['GET', 'PUT'])
    res = await fetch(rpc, {
      method,
      headers: { 'content-type': 'application/json' },
      body: method === 'GET' ? undefined : payload,
    })
    text = await res.text()
  } catch (e) {
    return {
      what: `${what} (${(e as Error).cause ?? e})`,
      status: 0,
      body: `${payload.length} bytes: ${payload.slice(0, 200)}`,
    }
  }
  if (res.status >= 500) return { what, status: res.status, body: text.slice(0, 300) }
  if (text === '') return res.status === 200 ? undefined : { what: `${what} (empty)`, status: res.status, body: '' }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return { what: `${what} (not JSON)`, status: res.status, body: text.slice(0, 300) }
  }
  const ok = (x: any) =>
    x?.jsonrpc === '2.0' &&
    ('result' in x || (typeof x.error?.code === 'number' && typeof x.error.message === 'string'))
  const valid = Array.isArray(json) ? json.every(ok) : ok(json)
  if (!valid || (res.status >= 400 && (Array.isArray(json) || !(json as any).error)))
    return { what: `${what} (not JSON-RPC)`, status: res.status, body: text.slice(0, 300) }
  if ((Array.isArray(json) ? json : [json]).some((x: any) => x.error?.code === -32603))
    return { what: `${what} (internal error)`, status: res.status, body: text.slice(0, 300) }
  return undefined
}

const RAW = [
  'FOO / HTTP/1.1\r\nHost: x\r\n\r\n',
  'POST /api/health HTTP/1.1\r\nHost: x\r\nExpect: x\r\nContent-Length: 0\r\n\r\n',
  `GET /api/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
  `GET /${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
  'POST /api/local/faucet HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
  'POST /api/local/faucet HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
  'GET /api/health HTTP/1.1\r\nHost: a b\r\n\r\n',
  'GET /api/health HTTP/9.9\r\nHost: x\r\n\r\n',
  'GET \\api\\health HTTP/1.1\r\nHost: x\r\n\r\n',
  'GET /api/health HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n',
]

/** Lowers this thread's priority (nice 10) where the OS allows; a no-op where it does not. */
function yieldTheCpu() {
  try {
    setPriority(0, Math.max(getPriority(0), 10))
  } catch {}
}

/** Seeded requests `from` up to `to`, CONCURRENCY at a time, in one shared order. */
async function fuzzRound(r: Rng, from: number, to: number, findings: Finding[], slow: Array<[number, number, string]>) {
  let next = from
  const worker = async () => {
    for (let i = next++; i < to; i = next++) {
      const kind = r.next()
      const t1 = performance.now()
      const f = await (kind < 0.6
        ? apiRequest(r, i)
        : kind < 0.97
          ? rpcCall(r, i)
          : rawHttp(r.chance(0.5) ? api : rpc, r.pick(RAW)).then((a) => {
              if (a.status >= 500 || a.status === 0) return { what: `#${i} raw`, status: a.status, body: a.body }
              try {
                JSON.parse(a.body)
                return undefined
              } catch {
                return { what: `#${i} raw (not JSON)`, status: a.status, body: a.body.slice(0, 300) }
              }
            }))
      if (f) findings.push(f)
      slow.push([performance.now() - t1, i, kind < 0.6 ? 'api' : kind < 0.97 ? 'rpc' : 'raw'])
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker))
}

/** Bound on what the daemon keeps, after a full collection, across the repeated round. */
const HEAP_GROWTH_MIB = 2.5
const RSS_GROWTH_MIB = 40

describe('fuzz: seeded malformed requests over every route', () => {
  it(`answers ${REQUESTS} of them without a 5xx, with { error, code } (JSON-RPC errors on the RPC), while /api/health keeps answering; a repeated round leaves memory where it was`, async () => {
    const r = prng(SEED)
    // Reported, not a bound: what the machine alone costs a probe right now.
    const idleProbe = healthProbe(`${api}/api/health`)
    await new Promise((resolve) => setTimeout(resolve, 3_000))
    const idle = p99(await idleProbe.stop())
    const t0 = performance.now()
    const findings: Finding[] = []
    const slow: Array<[number, number, string]> = []
    const probe = healthProbe(`${api}/api/health`)
    // The load generator shares this machine's two cores with the daemon, which a real attacker
    // does not: its thread yields to the daemon and to the probe (a thread of its own, started above
    // at the normal priority; Linux's nice is per thread). The daemon keeps the normal priority.
    yieldTheCpu()
    await fuzzRound(r, 0, REQUESTS, findings, slow)
    const latencies = await probe.stop()
    const fuzzMs = performance.now() - t0
    // Memory is read after a full collection (without one a reading mixes live data with garbage V8
    // has not collected yet), once the run above warmed caches, JIT and pools, and again after a
    // repeated round of three quarters as many: what that round left behind is the growth. (Outside
    // the health probe: a forced collection is the test's instrument, not the load.)
    const heap = await heapProbe(daemon.child.pid!, daemon.stderr)
    const warm = await heap.settled()
    const repeated = Math.floor((REQUESTS * 3) / 4)
    await fuzzRound(r, REQUESTS, REQUESTS + repeated, findings, slow)
    const end = await heap.settled()
    heap.close()
    if (process.env.FUZZ_SLOW)
      console.log(
        JSON.stringify(
          slow
            .sort((a, b) => b[0] - a[0])
            .slice(0, 30)
            .map(([ms, i]) => [Math.round(ms), described.get(i)]),
        ),
      )
    const mib = (x: number) => Math.round(x * 10) / 10
    console.log(
      JSON.stringify({
        fuzz: REQUESTS,
        ms: Math.round(fuzzMs),
        seed: SEED,
        healthP99Ms: mib(p99(latencies)),
        idleP99Ms: mib(idle),
        probes: latencies.length,
        repeated,
        settledBefore: { heapMiB: mib(warm.heapMiB), rssMiB: mib(warm.rssMiB) },
        settledAfter: { heapMiB: mib(end.heapMiB), rssMiB: mib(end.rssMiB) },
      }),
    )
    expect(findings.slice(0, 10), `${findings.length} findings (seed ${SEED})`).toEqual([])
    expect(
      latencies.filter((x) => x < 0),
      'failed /api/health probes',
    ).toEqual([])
    expect(latencies.length).toBeGreaterThan(50)
    // The p99 above is reported, not bound: tests never assert on time (a loaded CI machine is not
    // the daemon's fault). `npm run bench -- hostile` measures /api/health under the worst requests.
    // Settles: the repeated round leaves (almost) nothing behind: measured -1.1 to 0 MiB of heap. A
    // map keyed by the URL holding each request's headers (about 1 KB a request) was seen to add
    // 4.2 MiB in this round and fail; RSS also bounds native memory (the Solana VM's accounts, SQLite).
    expect(end.heapMiB - warm.heapMiB, `heap MiB after GC: ${mib(warm.heapMiB)} -> ${mib(end.heapMiB)}`).toBeLessThan(
      HEAP_GROWTH_MIB,
    )
    expect(end.rssMiB - warm.rssMiB, `RSS MiB after GC: ${mib(warm.rssMiB)} -> ${mib(end.rssMiB)}`).toBeLessThan(
      RSS_GROWTH_MIB,
    )
  }, 110_000)
})
