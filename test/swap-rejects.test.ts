import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { TOKEN_A, TOKEN_B, USDC } from '../src/networks/registry.js'
import { createSwapClient } from '../src/sdk/swap/index.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { buildBody, type BuildParameters } from './helpers/swap-orders.js'
import { newUser, snapshot, type SwapUser } from './helpers/swap-users.js'

let d: TestDaemon
let key: string
let u: SwapUser
let other: SwapUser
beforeAll(async () => {
  d = await startTestDaemon()
  key = await d.partnerKey()
  u = await newUser(d, key, { [USDC]: '20000', [TOKEN_A]: '1000', [TOKEN_B]: '1000' })
  other = await newUser(d, key, { [USDC]: '1000' })
})
afterAll(async () => d?.close())

const everyone = () => ({ user: u.address, other: other.address, solver: d.services.accounts.solver })
const post = (path: string, body: unknown, headers: Record<string, string> = { 'x-api-key': key }) =>
  d.raw(path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) })
const build = (p: BuildParameters, who = u) => buildBody(d, key, who.account, p)
const entry = (o: Partial<BuildParameters> = {}) => build({ in: USDC, out: TOKEN_A, amount: '10', ...o })

/**
 * Sends a request that must fail with `code`, and asserts that no balance, permit nonce, router
 * nonce or ETH of the user, the other wallet or the solver moved: nothing reached the chain.
 */
async function rejected(body: unknown, code: string, o: { status?: number; says?: string | RegExp; path?: string; headers?: Record<string, string> } = {}) {
  const before = await snapshot(d, everyone())
  const res = await post(o.path ?? '/api/base/swap', body, o.headers)
  expect({ status: res.status, code: res.body.code }, res.body.error).toEqual({ status: o.status ?? 400, code })
  expect(typeof res.body.error).toBe('string')
  if (o.says) expect(res.body.error).toMatch(o.says)
  expect(await snapshot(d, everyone())).toEqual(before)
  return res.body.error as string
}

describe('authentication (K routes)', () => {
  it.each([
    ['POST', '/api/base/swap'], ['POST', '/api/base/redeem'], ['GET', `/api/base/redeem/quote?amount=1`],
    ['GET', `/api/base/confirm?hash=0x${'0'.repeat(64)}`], ['GET', `/api/base/nonces?owner=0x${'1'.repeat(40)}`],
  ])('%s %s answers 401 without a key', async (method, path) => {
    const res = await d.raw(path, { method, ...(method === 'POST' ? { headers: { 'content-type': 'application/json' }, body: '{}' } : {}) })
    expect([res.status, res.body]).toEqual([401, { error: 'missing or invalid x-api-key', code: 'UNAUTHORIZED' }])
  })

  it('moves nothing when a signed swap comes without a key', async () => {
    await rejected(await entry(), 'UNAUTHORIZED', { status: 401, headers: {} })
  })
})

describe('signatures', () => {
  it('wrong signer: an order signed by another key', async () => {
    await rejected(await entry({ orderSigner: other.account }), 'INVALID_SIGNATURE', { says: `recovers to ${other.address}` })
  })

  it('tampered amount: inputAmount and uiAmount raised after signing', async () => {
    const body = await entry()
    const tampered = { ...body, uiAmount: '20', order: { ...body.order, inputAmount: '20000000', minOutputAmount: '20000000000000000000' } }
    await rejected(tampered, 'INVALID_SIGNATURE', { says: /orderSig does not recover/ })
  })

  it('wrong permit domain: a USDC permit signed under PUSD\'s domain', async () => {
    const info = await d.call('/api/base/info')
    const pusdDomain = info.redeemInputs[TOKEN_A].permitDomain
    await rejected(await entry({ permitDomain: { ...pusdDomain, verifyingContract: info.usdc } }), 'INVALID_SIGNATURE', { says: `{ name: 'USD Coin', version: '2' }` })
  })

  it('wrong permit domain: a PUSD permit signed under USDC\'s name and version', async () => {
    const info = await d.call('/api/base/info')
    const body = await build({ in: TOKEN_A, out: TOKEN_B, amount: '1', permitDomain: { name: info.usdcName, version: info.usdcVersion, chainId: info.chainId, verifyingContract: info.out[TOKEN_A].addr } })
    await rejected(body, 'INVALID_SIGNATURE', { says: `${TOKEN_A}'s permit domain` })
  })
})

describe('order fields against the request (SPEC §4.1 step 2)', () => {
  it('order for another user', async () => {
    await rejected({ ...(await entry({}, )), ...{ order: (await build({ in: USDC, out: TOKEN_A, amount: '10' }, other)).order } }, 'ORDER_MISMATCH', { says: /^order\.user/ })
  })

  it('uiAmount that is not the signed inputAmount', async () => {
    await rejected({ ...(await entry()), uiAmount: '10.000001' }, 'AMOUNT_MISMATCH', { says: 'order.inputAmount is 10000000' })
  })

  it('uiAmount as a number is accepted and compared exactly', async () => {
    await rejected({ ...(await entry({ amount: '0.1' })), uiAmount: 0.11 }, 'AMOUNT_MISMATCH', { says: 'uiAmount 0.11 USDC is 110000 base units' })
  })

  it.each([
    ['inputToken', { in: TOKEN_B }, /^order\.inputToken/],
    ['outputToken', { out: TOKEN_B }, /^order\.outputToken/],
  ])('%s that is not the request\'s symbol', async (_f, patch, says) => {
    await rejected({ ...(await entry()), ...patch }, 'ORDER_MISMATCH', { says })
  })

  it('a par minOutputAmount other than the rescaled input', async () => {
    await rejected(await entry({ order: { minOutputAmount: 10n * 10n ** 18n + 1n } }), 'ORDER_MISMATCH', { says: 'minOutputAmount = 10000000000000000000' })
  })

  it('a solver that is not ours', async () => {
    await rejected(await entry({ order: { solver: other.address } }), 'ORDER_MISMATCH', { says: /^order\.solver/ })
  })

  it('the same token in and out', async () => {
    await rejected({ ...(await entry()), out: USDC }, 'UNSUPPORTED_PAIR', { says: 'both USDC' })
  })

  it('an order whose output token is its input token', async () => {
    const info = await d.call('/api/base/info')
    await rejected(await entry({ order: { outputToken: info.usdc } }), 'ORDER_MISMATCH', { says: /^order\.outputToken/ })
  })
})

describe('deadline and nonce (step 3)', () => {
  it('expired deadline', async () => {
    const late = createSwapClient({ account: u.account, apiUrl: d.urls.api, apiKey: key, deadlineSeconds: -60 })
    await rejected(await late.prepare({ in: USDC, out: TOKEN_A, amount: '1' }), 'DEADLINE_EXPIRED', { says: 're-sign' })
  })

  it('stale or future nonce', async () => {
    const { router } = await d.call('/api/base/nonces', { query: { owner: u.address }, headers: { 'x-api-key': key } })
    await rejected(await entry({ order: { nonce: BigInt(router) + 1n } }), 'NONCE_MISMATCH', { says: `nonces(user) = ${router}` })
  })

  it('replay of a settled order', async () => {
    const body = await entry({ amount: '3' })
    const first = await post('/api/base/swap', body)
    expect(first.status).toBe(200)
    await u.parx.waitForInclusion(first.body.hash)
    await rejected(body, 'NONCE_MISMATCH', { says: 'already settled (a replay)' })
  })

  it('the same order twice at once: one lands, the other is refused', async () => {
    const body = await entry({ amount: '2' })
    const before = await snapshot(d, everyone())
    const [a, b] = await Promise.all([post('/api/base/swap', body), post('/api/base/swap', body)])
    expect([a.status, b.status].sort()).toEqual([200, 400])
    const ok = a.status === 200 ? a : b
    expect((a.status === 400 ? a : b).body.code).toBe('NONCE_MISMATCH')
    await u.parx.waitForInclusion(ok.body.hash)
    const after = await snapshot(d, everyone())
    expect(after['USDC user']! - before['USDC user']!).toBe(-2_000_000n)
    expect(after['router nonce user']! - before['router nonce user']!).toBe(1n)
  })
})

describe('inventory, balance and size (steps 4-6)', () => {
  it('amount above the solver inventory', async () => {
    await rejected(await build({ in: TOKEN_A, out: TOKEN_B, amount: '2000000' }), 'INVENTORY_SHORT', { says: /the solver holds [\d.]+ XUSD, less than the 2000000/ })
  })

  it('amount above the user balance', async () => {
    await rejected(await build({ in: TOKEN_B, out: TOKEN_A, amount: '1000.000001' }), 'INSUFFICIENT_BALANCE', { says: 'holds 1000 XUSD' })
  })

  it('amount above max', async () => {
    const { max } = await d.call('/api/base/info')
    expect(max).toBe(10_000)
    await rejected(await entry({ amount: '10000.000001' }), 'AMOUNT_TOO_LARGE', { says: 'max = 10000' })
  })

  it('a redemption floor the pool does not pay', async () => {
    const body = await build({ in: TOKEN_A, out: USDC, amount: '100' }) // signs par: more than the pool pays
    await rejected(body, 'QUOTE_STALE', { path: '/api/base/redeem', says: 're-quote' })
  })

  it('a redemption signing no floor', async () => {
    await rejected(await build({ in: TOKEN_A, out: USDC, amount: '1', order: { minOutputAmount: 0n } }), 'ORDER_MISMATCH', { path: '/api/base/redeem', says: 'minOutBase' })
  })
})

describe('malformed requests', () => {
  it.each([['0', 'greater than zero'], ['-5', 'a positive decimal'], ['abc', 'a positive decimal'], ['1e3', 'a positive decimal'], [0, 'greater than zero'], ['', 'a positive decimal']])(
    'uiAmount %j', async (uiAmount, says) => {
      await rejected({ ...(await entry()), uiAmount }, 'BAD_REQUEST', { says: `invalid field 'uiAmount': must be ${says}` })
    })

  it('too many decimals for the input token', async () => {
    const body = await entry()
    await rejected({ ...body, uiAmount: '10.0000001' }, 'BAD_REQUEST', { says: 'more than 6 decimal places' })
  })

  it('a par amount the output token cannot carry (18 to 6 decimals)', async () => {
    const body = await build({ in: TOKEN_A, out: TOKEN_B, amount: '1.0000005' })
    await rejected(body, 'BAD_REQUEST', { says: 'more than 6 decimal places, the output token\'s precision' })
  })

  it.each([['in', 'DOGE'], ['out', 'FOO']])('unknown symbol in %s', async (field, sym) => {
    await rejected({ ...(await entry()), [field]: sym }, 'UNKNOWN_TOKEN', { says: `${field} '${sym}'` })
  })

  it.each([
    ['user', (b: any) => ({ ...b, user: '0x1234' })],
    ['order.inputToken', (b: any) => ({ ...b, order: { ...b.order, inputToken: 'not-an-address' } })],
    ['order.solver', (b: any) => ({ ...b, order: { ...b.order, solver: `0x${'g'.repeat(40)}` } })],
  ])('malformed address in %s', async (field, patch) => {
    await rejected(patch(await entry()), 'BAD_REQUEST', { says: `invalid field '${field}': not an EVM address` })
  })

  it.each(['order', 'orderSig', 'v', 'r', 's', 'user', 'uiAmount'])('missing %s', async (field) => {
    const body: any = await entry()
    delete body[field]
    await rejected(body, 'BAD_REQUEST', { says: `missing field '${field}'` })
  })

  it.each(['inputAmount', 'deadline', 'nonce'])('missing order.%s', async (field) => {
    const body: any = await entry()
    delete body.order[field]
    await rejected(body, 'BAD_REQUEST', { says: `missing field 'order.${field}'` })
  })

  it.each([['-1', 'digits'], ['1.5', 'digits'], [`1${'0'.repeat(78)}`, 'digits'], [2 ** 60, 'too large for a JSON number']])('order.inputAmount %j', async (value, says) => {
    const body: any = await entry()
    await rejected({ ...body, order: { ...body.order, inputAmount: value } }, 'BAD_REQUEST', { says })
  })

  it('a permit v that is not 27 or 28', async () => {
    await rejected({ ...(await entry()), v: 29 }, 'BAD_REQUEST', { says: "invalid field 'v'" })
  })

  it('a huge body', async () => {
    const body: any = await entry()
    await rejected({ ...body, padding: 'x'.repeat(100_000) }, 'PAYLOAD_TOO_LARGE', { status: 413 })
  })

  it('not JSON', async () => {
    await rejected('{"user": ', 'MALFORMED_JSON')
  })
})

describe('redeem quote and confirm', () => {
  const get = (path: string, query: Record<string, string>) => d.raw(`${path}?${new URLSearchParams(query)}`, { headers: { 'x-api-key': key } })

  it.each([
    [{ in: USDC, amount: '1' }, 'UNSUPPORTED_PAIR'],
    [{ in: 'DOGE', amount: '1' }, 'UNKNOWN_TOKEN'],
    [{ in: TOKEN_A }, 'BAD_REQUEST', "missing query parameter 'amount'"],
    [{ in: TOKEN_A, amount: 'abc' }, 'BAD_REQUEST'],
    [{ in: TOKEN_A, amount: '0.0000001' }, 'BAD_REQUEST'],
  ])('quote %j answers 400 %s', async (query, code, says?: string) => {
    const res = await get('/api/base/redeem/quote', query as Record<string, string>)
    expect([res.status, res.body.code], res.body.error).toEqual([400, code])
    if (says) expect(res.body.error).toContain(says)
  })

  it('defaults in to PUSD', async () => {
    expect((await get('/api/base/redeem/quote', { amount: '1' })).body.in).toBe(TOKEN_A)
  })

  it('confirm: a malformed hash answers 400, a hash nobody sent is unknown', async () => {
    expect((await get('/api/base/confirm', { hash: '0x12' })).body.code).toBe('BAD_REQUEST')
    const unknown = await get('/api/base/confirm', { hash: `0x${'ab'.repeat(32)}` })
    expect([unknown.status, unknown.body.status]).toEqual([200, 'unknown'])
  })
})

describe('a disabled flow', () => {
  let off: TestDaemon
  beforeAll(async () => {
    off = await startTestDaemon({ flags: { flows: { 'base.entry': false, 'base.redeem': false } } })
  })
  afterAll(async () => off?.close())

  it('answers 403 FLOW_DISABLED for the entry buy and the redemption, and still swaps at par', async () => {
    const k = await off.partnerKey()
    const w = await newUser(off, k, { [USDC]: '5', [TOKEN_A]: '5' })
    const expectDisabled = async (p: Promise<unknown>) => expect(await p.then(() => undefined, (e) => [e.status, e.code])).toEqual([403, 'FLOW_DISABLED'])
    await expectDisabled(w.parx.swap({ in: USDC, out: TOKEN_A, amount: '1' }))
    await expectDisabled(w.parx.quote({ in: TOKEN_A, amount: '1' }))
    const body = await buildBody(off, k, w.account, { in: TOKEN_A, out: USDC, amount: '1', order: { minOutputAmount: 1n } })
    expect((await off.raw('/api/base/redeem', { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': k }, body: JSON.stringify(body) })).body.code).toBe('FLOW_DISABLED')
    await w.parx.waitForInclusion((await w.parx.swap({ in: TOKEN_A, out: TOKEN_B, amount: '1' })).hash)
    const b = await off.call('/api/base/balance', { query: { owner: w.address } })
    expect([b.tokens[USDC].raw, b.tokens[TOKEN_A].raw, b.tokens[TOKEN_B].raw]).toEqual(['5000000', '4000000000000000000', '1000000'])
  })
})

describe('a throwaway key pair', () => {
  it('is not a user of the daemon', () => {
    expect(privateKeyToAccount(generatePrivateKey()).address).toMatch(/^0x/)
  })
})
