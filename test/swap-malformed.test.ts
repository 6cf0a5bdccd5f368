import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TOKEN_A, TOKEN_B, USDC } from '../src/networks/registry.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { buildBody } from './helpers/swap-orders.js'
import { useRejectKit } from './helpers/swap-rejects.js'
import { newUser } from './helpers/swap-users.js'

// Requests that are not well-formed swaps, quotes or confirms, and switched-off flows.
const k = useRejectKit()
const { rejected, entry, build } = k

describe('malformed requests', () => {
  it.each([
    ['0', 'greater than zero'],
    ['-5', 'a positive decimal'],
    ['abc', 'a positive decimal'],
    ['1e3', 'a positive decimal'],
    [0, 'greater than zero'],
    ['', 'a positive decimal'],
  ])('uiAmount %j', async (uiAmount, says) => {
    await rejected({ ...(await entry()), uiAmount }, 'BAD_REQUEST', {
      says: `invalid field 'uiAmount': must be ${says}`,
    })
  })

  it('too many decimals for the input token', async () => {
    const body = await entry()
    await rejected({ ...body, uiAmount: '10.0000001' }, 'BAD_REQUEST', { says: 'more than 6 decimal places' })
  })

  it('a par amount the output token cannot carry (18 to 6 decimals)', async () => {
    const body = await build({ in: TOKEN_A, out: TOKEN_B, amount: '1.0000005' })
    await rejected(body, 'BAD_REQUEST', { says: "more than 6 decimal places, the output token's precision" })
  })

  it.each([
    ['in', 'DOGE'],
    ['out', 'FOO'],
  ])('unknown symbol in %s', async (field, sym) => {
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

  it.each([
    ['-1', 'digits'],
    ['1.5', 'digits'],
    [`1${'0'.repeat(78)}`, 'digits'],
    [2 ** 60, 'too large for a JSON number'],
  ])('order.inputAmount %j', async (value, says) => {
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
  const get = (path: string, query: Record<string, string>) =>
    k.d.raw(`${path}?${new URLSearchParams(query)}`, { headers: { 'x-api-key': k.key } })

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
    const offKey = await off.partnerKey()
    const w = await newUser(off, offKey, { [USDC]: '5', [TOKEN_A]: '5' })
    const expectDisabled = async (p: Promise<unknown>) =>
      expect(
        await p.then(
          () => undefined,
          (e) => [e.status, e.code],
        ),
      ).toEqual([403, 'FLOW_DISABLED'])
    await expectDisabled(w.parx.swap({ in: USDC, out: TOKEN_A, amount: '1' }))
    await expectDisabled(w.parx.quote({ in: TOKEN_A, amount: '1' }))
    const body = await buildBody(off, offKey, w.account, {
      in: TOKEN_A,
      out: USDC,
      amount: '1',
      order: { minOutputAmount: 1n },
    })
    expect(
      (
        await off.raw('/api/base/redeem', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': offKey },
          body: JSON.stringify(body),
        })
      ).body.code,
    ).toBe('FLOW_DISABLED')
    await w.parx.waitForInclusion((await w.parx.swap({ in: TOKEN_A, out: TOKEN_B, amount: '1' })).hash)
    const b = await off.call('/api/base/balance', { query: { owner: w.address } })
    expect([b.tokens[USDC].raw, b.tokens[TOKEN_A].raw, b.tokens[TOKEN_B].raw]).toEqual([
      '5000000',
      '4000000000000000000',
      '1000000',
    ])
  })
})
