import { describe, expect, it } from 'vitest'
import { TOKEN_A, TOKEN_B, USDC } from '../src/networks/registry.js'
import { createSwapClient } from '../src/sdk/swap/index.js'
import { useRejectKit } from './helpers/swap-rejects.js'
import { snapshot } from './helpers/swap-users.js'

// Bad signatures, disagreeing fields, stale orders and oversize amounts: each a 4xx {error, code}
// that moves nothing on chain.
const k = useRejectKit()
const { rejected, entry, build, post } = k
const everyone = () => ({ user: k.u.address, other: k.other.address, solver: k.d.services.accounts.solver })

describe('authentication (K routes)', () => {
  it.each([
    ['POST', '/api/base/swap'],
    ['POST', '/api/base/redeem'],
    ['GET', `/api/base/redeem/quote?amount=1`],
    ['GET', `/api/base/confirm?hash=0x${'0'.repeat(64)}`],
    ['GET', `/api/base/nonces?owner=0x${'1'.repeat(40)}`],
  ])('%s %s answers 401 without a key', async (method, path) => {
    const res = await k.d.raw(path, {
      method,
      ...(method === 'POST' ? { headers: { 'content-type': 'application/json' }, body: '{}' } : {}),
    })
    expect([res.status, res.body]).toEqual([
      401,
      { error: 'missing or invalid x-api-key', code: 'UNAUTHORIZED', requestId: res.headers.get('x-request-id') },
    ])
  })

  it('moves nothing when a signed swap comes without a key', async () => {
    await rejected(await entry(), 'UNAUTHORIZED', { status: 401, headers: {} })
  })
})

describe('signatures', () => {
  it('wrong signer: an order signed by another key', async () => {
    await rejected(await entry({ orderSigner: k.other.account }), 'INVALID_SIGNATURE', {
      says: `recovers to ${k.other.address}`,
    })
  })

  it('tampered amount: inputAmount and uiAmount raised after signing', async () => {
    const body = await entry()
    const tampered = {
      ...body,
      uiAmount: '20',
      order: { ...body.order, inputAmount: '20000000', minOutputAmount: '20000000000000000000' },
    }
    await rejected(tampered, 'INVALID_SIGNATURE', { says: /orderSig does not recover/ })
  })

  it("wrong permit domain: a USDC permit signed under PUSD's domain", async () => {
    const info = await k.d.call('/api/base/info')
    const pusdDomain = info.redeemInputs[TOKEN_A].permitDomain
    await rejected(
      await entry({ permitDomain: { ...pusdDomain, verifyingContract: info.usdc } }),
      'INVALID_SIGNATURE',
      { says: `{ name: 'USD Coin', version: '2' }` },
    )
  })

  it("wrong permit domain: a PUSD permit signed under USDC's name and version", async () => {
    const info = await k.d.call('/api/base/info')
    const body = await build({
      in: TOKEN_A,
      out: TOKEN_B,
      amount: '1',
      permitDomain: {
        name: info.usdcName,
        version: info.usdcVersion,
        chainId: info.chainId,
        verifyingContract: info.out[TOKEN_A].addr,
      },
    })
    await rejected(body, 'INVALID_SIGNATURE', { says: `${TOKEN_A}'s permit domain` })
  })
})

describe('order fields against the request (docs/swap-api.md "Routes", check 2)', () => {
  it('order for another user', async () => {
    await rejected(
      { ...(await entry({})), ...{ order: (await build({ in: USDC, out: TOKEN_A, amount: '10' }, k.other)).order } },
      'ORDER_MISMATCH',
      { says: /^order\.user/ },
    )
  })

  it('uiAmount that is not the signed inputAmount', async () => {
    await rejected({ ...(await entry()), uiAmount: '10.000001' }, 'AMOUNT_MISMATCH', {
      says: 'order.inputAmount is 10000000',
    })
  })

  it('uiAmount as a number is accepted and compared exactly', async () => {
    await rejected({ ...(await entry({ amount: '0.1' })), uiAmount: 0.11 }, 'AMOUNT_MISMATCH', {
      says: 'uiAmount 0.11 USDC is 110000 base units',
    })
  })

  it.each([
    ['inputToken', { in: TOKEN_B }, /^order\.inputToken/],
    ['outputToken', { out: TOKEN_B }, /^order\.outputToken/],
  ])("%s that is not the request's symbol", async (_f, patch, says) => {
    await rejected({ ...(await entry()), ...patch }, 'ORDER_MISMATCH', { says })
  })

  it('a par minOutputAmount other than the rescaled input', async () => {
    await rejected(await entry({ order: { minOutputAmount: 10n * 10n ** 18n + 1n } }), 'ORDER_MISMATCH', {
      says: 'minOutputAmount = 10000000000000000000',
    })
  })

  it('a solver that is not ours', async () => {
    await rejected(await entry({ order: { solver: k.other.address } }), 'ORDER_MISMATCH', { says: /^order\.solver/ })
  })

  it('the same token in and out', async () => {
    await rejected({ ...(await entry()), out: USDC }, 'UNSUPPORTED_PAIR', { says: 'both USDC' })
  })

  it('an order whose output token is its input token', async () => {
    const info = await k.d.call('/api/base/info')
    await rejected(await entry({ order: { outputToken: info.usdc } }), 'ORDER_MISMATCH', {
      says: /^order\.outputToken/,
    })
  })
})

describe('deadline and nonce (step 3)', () => {
  it('expired deadline', async () => {
    const late = createSwapClient({ account: k.u.account, apiUrl: k.d.urls.api, apiKey: k.key, deadlineSeconds: -60 })
    await rejected(await late.prepare({ in: USDC, out: TOKEN_A, amount: '1' }), 'DEADLINE_EXPIRED', { says: 're-sign' })
  })

  it('stale or future nonce', async () => {
    const { router } = await k.d.call('/api/base/nonces', {
      query: { owner: k.u.address },
      headers: { 'x-api-key': k.key },
    })
    await rejected(await entry({ order: { nonce: BigInt(router) + 1n } }), 'NONCE_MISMATCH', {
      says: `nonces(user) = ${router}`,
    })
  })

  it('replay of a settled order', async () => {
    const body = await entry({ amount: '3' })
    const first = await post('/api/base/swap', body)
    expect(first.status).toBe(200)
    await k.u.parx.waitForInclusion(first.body.hash)
    await rejected(body, 'NONCE_MISMATCH', { says: 'already settled (a replay)' })
  })

  it('the same order twice at once: one lands, the other is refused', async () => {
    const body = await entry({ amount: '2' })
    const before = await snapshot(k.d, everyone())
    const [a, b] = await Promise.all([post('/api/base/swap', body), post('/api/base/swap', body)])
    expect([a.status, b.status].sort()).toEqual([200, 400])
    const ok = a.status === 200 ? a : b
    expect((a.status === 400 ? a : b).body.code).toBe('NONCE_MISMATCH')
    await k.u.parx.waitForInclusion(ok.body.hash)
    const after = await snapshot(k.d, everyone())
    expect(after['USDC user']! - before['USDC user']!).toBe(-2_000_000n)
    expect(after['router nonce user']! - before['router nonce user']!).toBe(1n)
  })
})

describe('inventory, balance and size (steps 4-6)', () => {
  it('amount above the solver inventory', async () => {
    await rejected(await build({ in: TOKEN_A, out: TOKEN_B, amount: '2000000' }), 'INVENTORY_SHORT', {
      says: /the solver holds [\d.]+ XUSD, less than the 2000000/,
    })
  })

  it('amount above the user balance', async () => {
    await rejected(await build({ in: TOKEN_B, out: TOKEN_A, amount: '1000.000001' }), 'INSUFFICIENT_BALANCE', {
      says: 'holds 1000 XUSD',
    })
  })

  it('amount above max', async () => {
    const { max } = await k.d.call('/api/base/info')
    expect(max).toBe(10_000)
    await rejected(await entry({ amount: '10000.000001' }), 'AMOUNT_TOO_LARGE', { says: 'max = 10000' })
  })

  it('a redemption floor the pool does not pay', async () => {
    const body = await build({ in: TOKEN_A, out: USDC, amount: '100' }) // signs par: more than the pool pays
    await rejected(body, 'QUOTE_STALE', { path: '/api/base/redeem', says: 're-quote' })
  })

  it('a redemption signing no floor', async () => {
    await rejected(
      await build({ in: TOKEN_A, out: USDC, amount: '1', order: { minOutputAmount: 0n } }),
      'ORDER_MISMATCH',
      { path: '/api/base/redeem', says: 'minOutBase' },
    )
  })
})
