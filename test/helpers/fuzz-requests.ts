import { networks } from '../../src/networks/registry.js'

/** A seeded PRNG (mulberry32): the same seed gives the same requests, so a finding can be replayed. */
export function prng(seed: number) {
  let a = seed >>> 0
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (n: number) => Math.floor(next() * n)
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!
  return { next, int, pick, chance: (p: number) => next() < p }
}
export type Rng = ReturnType<typeof prng>

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'
const base58 = (r: Rng, n: number) => {
  const chunk = Array.from({ length: Math.min(n, 97) }, () => BASE58[r.int(58)]).join('')
  return chunk.repeat(Math.ceil(n / chunk.length)).slice(0, n)
}
const hex = (r: Rng, n: number) => `0x${Array.from({ length: n }, () => '0123456789abcdef'[r.int(16)]).join('')}`

/** Hostile scalars: wrong types, limits of every integer size, long and odd strings. */
export function junk(r: Rng, depth = 0): unknown {
  switch (r.int(depth > 2 ? 16 : 20)) {
    case 0:
      return null
    case 1:
      return r.chance(0.5)
    case 2:
      return r.pick([0, -1, 1.5, 1e308, -1e308, 2 ** 53, 2 ** 64, Number.MAX_SAFE_INTEGER])
    case 3:
      return r.pick([
        '',
        ' ',
        '0',
        '-1',
        '1e9',
        'NaN',
        'Infinity',
        '0x',
        '9'.repeat(78),
        '18446744073709551616',
        '1.0000000000000000001',
      ])
    case 4:
      return base58(r, r.pick([32, 43, 44, 45, 87, 88, 200]))
    case 5:
      return base58(r, r.pick([2_000, 20_000, 60_000]))
    case 6:
      return hex(r, r.pick([40, 64, 130, 131, 4000]))
    case 7:
      return 'x'.repeat(r.pick([100, 10_000, 70_000]))
    case 8:
      return '\u0000\uffff\ud800<script>\'"\\'
    case 9:
      return r.pick(['USDC', 'PUSD', 'XUSD', 'SOL', 'ETH', 'usdc', 'NOPE'])
    case 10:
      return r.pick(Object.values(networks).flatMap((n) => [n.key, n.caip2, n.legacyName]))
    case 11:
      return String(r.int(1e9))
    case 12:
      return `${r.int(1e6)}.${r.int(1e9)}`
    case 13:
      return '0x00000000000000000000000000000000000000aa'
    case 14:
      return '7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV'
    case 15:
      return hex(r, 64)
    case 16:
      return Array.from({ length: r.int(5) }, () => junk(r, depth + 1))
    case 17:
      return Object.fromEntries(Array.from({ length: r.int(5) }, () => [r.pick(FIELDS), junk(r, depth + 1)]))
    case 18:
      return { __proto__: { polluted: true }, constructor: { prototype: { x: 1 } } }
    default:
      return Array.from({ length: r.pick([100, 2_000]) }, () => 1)
  }
}

/** Field names the routes read, so mutations reach the validators rather than stopping at the first missing field. */
const FIELDS = [
  'to',
  'token',
  'amount',
  'network',
  'user',
  'owner',
  'name',
  'description',
  'order',
  'signature',
  'permit',
  'uiAmount',
  'inSym',
  'outSym',
  'inputToken',
  'outputToken',
  'inputAmount',
  'minOutputAmount',
  'nonce',
  'deadline',
  'solver',
  'recipient',
  'x402Version',
  'paymentPayload',
  'paymentRequirements',
  'scheme',
  'accepted',
  'payload',
  'authorization',
  'from',
  'value',
  'validAfter',
  'validBefore',
  'asset',
  'payTo',
  'maxAmountRequired',
  'maxTimeoutSeconds',
  'extra',
  'transaction',
  'slippageBpsMax',
]

/** A body shaped like a route's (its field names) with hostile values, or not JSON at all. */
export function body(r: Rng): string {
  if (r.chance(0.08))
    return r.pick(['', '{', 'null', '[]', '"x"', '{"a":', '\u0000', '{}'.repeat(1000), '['.repeat(5000)])
  if (r.chance(0.25)) return JSON.stringify(x402Body(r))
  const o: Record<string, unknown> = {}
  for (let i = r.int(8); i >= 0; i--) o[r.pick(FIELDS)] = junk(r)
  return JSON.stringify(o)
}

function x402Body(r: Rng) {
  const spec = r.pick(Object.values(networks))
  const network = r.chance(0.5) ? spec.caip2 : spec.legacyName
  const requirements = {
    scheme: r.chance(0.9) ? 'exact' : junk(r),
    network,
    asset: junk(r),
    payTo: junk(r),
    amount: junk(r),
    maxAmountRequired: junk(r),
    maxTimeoutSeconds: junk(r),
    extra: r.chance(0.5)
      ? { assetTransferMethod: r.pick(['erc2612', 'delegated-spl', 'eip3009', 'permit2']) }
      : junk(r),
  }
  const authorization = {
    from: junk(r),
    to: junk(r),
    value: junk(r),
    validAfter: junk(r),
    validBefore: junk(r),
    nonce: junk(r),
  }
  const payload = r.chance(0.3)
    ? { transaction: junk(r) }
    : { signature: r.chance(0.3) ? base58(r, r.pick([88, 63_000])) : junk(r), authorization }
  return {
    x402Version: r.pick([1, 2, 2, 3, '2', null]),
    paymentPayload: { x402Version: r.pick([1, 2]), scheme: 'exact', network, accepted: requirements, payload },
    paymentRequirements: requirements,
  }
}

/** A query string with the parameters the routes read and hostile values. */
export function queryString(r: Rng): string {
  const keys = [
    'owner',
    'net',
    'network',
    'sig',
    'hash',
    'token',
    'in',
    'out',
    'inSym',
    'outSym',
    'uiAmount',
    'amount',
    'user',
    'limit',
    'rail',
  ]
  const parts: string[] = []
  for (let i = r.int(5); i >= 0; i--) {
    const v = junk(r)
    // Lone surrogates cannot be percent-encoded as UTF-8; everything else goes through as it is.
    const text = (
      typeof v === 'string' ? v.slice(0, r.chance(0.9) ? 400 : 12_000) : (JSON.stringify(v)?.slice(0, 400) ?? '')
    ).replace(/[\ud800-\udfff]/g, '\ufffd')
    parts.push(`${encodeURIComponent(r.pick(keys))}=${r.chance(0.1) ? '%zz%00%ff' : encodeURIComponent(text)}`)
  }
  return parts.join('&')
}

export const SOLANA_METHODS = [
  'getAccountInfo',
  'getBalance',
  'getBlockHeight',
  'getEpochInfo',
  'getFeeForMessage',
  'getGenesisHash',
  'getHealth',
  'getLatestBlockhash',
  'getMinimumBalanceForRentExemption',
  'getMultipleAccounts',
  'getRecentBlockhash',
  'getSignatureStatuses',
  'getSignaturesForAddress',
  'getSlot',
  'getTokenAccountBalance',
  'getTokenAccountsByOwner',
  'getTokenSupply',
  'getTransaction',
  'getVersion',
  'isBlockhashValid',
  'requestAirdrop',
  'sendTransaction',
  'simulateTransaction',
  'noSuchMethod',
]

/** One JSON-RPC request (or a malformed one) with hostile params. */
export function rpcRequest(r: Rng): unknown {
  if (r.chance(0.05)) return junk(r)
  const params = r.chance(0.1)
    ? junk(r)
    : Array.from({ length: r.int(4) }, () =>
        r.chance(0.3)
          ? {
              encoding: r.pick(['base58', 'base64', 'jsonParsed', 'x']),
              commitment: junk(r),
              minContextSlot: junk(r),
              mint: junk(r),
              programId: junk(r),
            }
          : junk(r),
      )
  const req: Record<string, unknown> = {
    jsonrpc: r.chance(0.95) ? '2.0' : junk(r),
    method: r.chance(0.95) ? r.pick(SOLANA_METHODS) : junk(r),
    params,
  }
  if (r.chance(0.95)) req.id = r.chance(0.9) ? r.int(1e6) : junk(r)
  return req
}

export function rpcBody(r: Rng): string {
  if (r.chance(0.05)) return r.pick(['', '{', '[]', 'null', '\u0000', '['.repeat(3000)])
  if (!r.chance(0.15)) return JSON.stringify(rpcRequest(r))
  // A batch; past 1 MiB the answer is the same 413, so building more would only cost the client.
  const parts: string[] = []
  let size = 0
  for (let n = r.pick([1, 2, 10, 100, 101, 500]); n > 0 && size < 1024 * 1024; n--) {
    const part = JSON.stringify(rpcRequest(r)) ?? 'null'
    parts.push(part)
    size += part.length
  }
  return `[${parts.join(',')}]`
}
