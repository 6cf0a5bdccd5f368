import { Keypair, PublicKey } from '@solana/web3.js'
import bs58 from 'bs58'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TOKEN_A, TOKEN_B, USDC } from '../src/networks/registry.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { type SolClient, solClient } from './helpers/sol.js'

let d: TestDaemon
let c: SolClient
let funded: Keypair
const poor = Keypair.generate()
const empty = Keypair.generate().publicKey.toBase58()
const pda = PublicKey.findProgramAddressSync(
  [Buffer.from('parx')],
  new PublicKey('11111111111111111111111111111111'),
)[0].toBase58()

beforeAll(async () => {
  d = await startTestDaemon()
  c = await solClient(d)
  funded = Keypair.generate()
  await c.fund(funded.publicKey, USDC, '20000')
  await c.fund(funded.publicKey, TOKEN_A, '30000')
  await c.fund(poor.publicKey, USDC, '5')
})
afterAll(async () => d?.close())

type Case = [name: string, call: () => Promise<{ status: number; body: any }>, status: number, code: string]

const swap =
  (body: Record<string, unknown>, path = '/api/sol/swap') =>
  () =>
    c.post(path, { user: funded.publicKey.toBase58(), uiAmount: '1', ...body })

const cases: Case[] = [
  // auth (K routes)
  ['swap without a key', () => d.raw('/api/sol/swap', { method: 'POST', body: '{}' }), 401, 'UNAUTHORIZED'],
  ['redeem without a key', () => d.raw('/api/sol/redeem', { method: 'POST', body: '{}' }), 401, 'UNAUTHORIZED'],
  ['quote without a key', () => d.raw(`/api/sol/redeem/quote?amount=1`), 401, 'UNAUTHORIZED'],
  [
    'confirm without a key',
    () => d.raw(`/api/sol/confirm?sig=${bs58.encode(new Uint8Array(64).fill(1))}`),
    401,
    'UNAUTHORIZED',
  ],
  // body shape
  ['a body that is not JSON', () => c.post('/api/sol/swap', 'user=me'), 400, 'MALFORMED_JSON'],
  ['a missing user', () => c.post('/api/sol/swap', { uiAmount: '1' }), 400, 'BAD_REQUEST'],
  ['a user that is not base58', swap({ user: '0xabc' }), 400, 'BAD_REQUEST'],
  ['a user of 31 bytes', swap({ user: bs58.encode(new Uint8Array(31).fill(7)) }), 400, 'BAD_REQUEST'],
  ['a user that is a program-derived address', swap({ user: pda }), 400, 'BAD_REQUEST'],
  [
    'the solver as user',
    () => c.post('/api/sol/swap', { user: c.solver.toBase58(), uiAmount: '1' }),
    400,
    'BAD_REQUEST',
  ],
  ['a missing uiAmount', () => c.post('/api/sol/swap', { user: empty }), 400, 'BAD_REQUEST'],
  ['a zero amount', swap({ uiAmount: '0' }), 400, 'BAD_REQUEST'],
  ['a negative amount', swap({ uiAmount: '-1' }), 400, 'BAD_REQUEST'],
  ['an amount that is not a number', swap({ uiAmount: 'ten' }), 400, 'BAD_REQUEST'],
  ['more decimals than USDC has', swap({ uiAmount: '1.0000001' }), 400, 'BAD_REQUEST'],
  ['more decimals than PUSD has', swap({ in: TOKEN_A, out: TOKEN_B, uiAmount: '1.0000000001' }), 400, 'BAD_REQUEST'],
  [
    'PUSD digits XUSD cannot hold (par would lose them)',
    swap({ in: TOKEN_A, out: TOKEN_B, uiAmount: '1.0000001' }),
    400,
    'BAD_REQUEST',
  ],
  ['a minOutBase that is not base units', swap({ minOutBase: '1.5' }), 400, 'BAD_REQUEST'],
  ['another cluster as net', swap({ net: 'devnet' }), 400, 'BAD_REQUEST'],
  // tokens and pairs
  ['an unknown input symbol', swap({ in: 'DOGE' }), 400, 'UNKNOWN_TOKEN'],
  ['an unknown output symbol', swap({ out: 'SHIB' }), 400, 'UNKNOWN_TOKEN'],
  ['the same token in and out', swap({ in: USDC, out: 'usdc' }), 400, 'UNSUPPORTED_PAIR'],
  // limits, balances, prices
  ['a par swap above max', swap({ uiAmount: '10000.000001' }), 400, 'AMOUNT_TOO_LARGE'],
  ['a redemption above the ceiling', swap({ uiAmount: '25000.000000001' }, '/api/sol/redeem'), 400, 'AMOUNT_TOO_LARGE'],
  [
    'a redemption the inventory curve cannot take within slippageBpsMax',
    swap({ uiAmount: '20000' }, '/api/sol/redeem'),
    400,
    'SLIPPAGE_TOO_HIGH',
  ],
  [
    'a redemption floor above the live price',
    swap({ uiAmount: '100', minOutBase: '100000000' }, '/api/sol/redeem'),
    400,
    'QUOTE_STALE',
  ],
  [
    'a wallet without the input',
    () => c.post('/api/sol/swap', { user: empty, uiAmount: '1' }),
    400,
    'INSUFFICIENT_BALANCE',
  ],
  ['a wallet without any of the input', swap({ uiAmount: '0.000001', in: TOKEN_B }), 400, 'INSUFFICIENT_BALANCE'],
  [
    'a wallet short of the input by one unit',
    () => c.post('/api/sol/swap', { user: poor.publicKey.toBase58(), uiAmount: '5.000001' }),
    400,
    'INSUFFICIENT_BALANCE',
  ],
  // quote
  ['a quote without amount', () => c.get('/api/sol/redeem/quote?in=PUSD'), 400, 'BAD_REQUEST'],
  ['a quote for USDC', () => c.get('/api/sol/redeem/quote?in=USDC&amount=1'), 400, 'UNSUPPORTED_PAIR'],
  ['a quote for an unknown token', () => c.get('/api/sol/redeem/quote?in=DOGE&amount=1'), 400, 'UNKNOWN_TOKEN'],
  ['a quote on another cluster', () => c.get('/api/sol/redeem/quote?net=testnet&amount=1'), 400, 'BAD_REQUEST'],
  ['a quote above the ceiling', () => c.get('/api/sol/redeem/quote?amount=25001'), 400, 'AMOUNT_TOO_LARGE'],
  ['a quote beyond slippageBpsMax', () => c.get('/api/sol/redeem/quote?amount=20000'), 400, 'SLIPPAGE_TOO_HIGH'],
  ['a quote with too many decimals', () => c.get('/api/sol/redeem/quote?amount=0.0000000001'), 400, 'BAD_REQUEST'],
  // confirm, recent, info, balance
  ['confirm without sig', () => c.get('/api/sol/confirm'), 400, 'BAD_REQUEST'],
  ['confirm with a malformed sig', () => c.get('/api/sol/confirm?sig=0xdeadbeef'), 400, 'BAD_REQUEST'],
  ['confirm with a 32-byte sig', () => c.get(`/api/sol/confirm?sig=${empty}`), 400, 'BAD_REQUEST'],
  ['recent with limit 0', () => d.raw('/api/sol/recent?limit=0'), 400, 'BAD_REQUEST'],
  ['recent with limit 101', () => d.raw('/api/sol/recent?limit=101'), 400, 'BAD_REQUEST'],
  ['recent with a limit that is not a number', () => d.raw('/api/sol/recent?limit=all'), 400, 'BAD_REQUEST'],
  ['info on another cluster', () => d.raw('/api/sol/info?net=devnet'), 400, 'BAD_REQUEST'],
  ['balance without owner', () => d.raw('/api/sol/balance'), 400, 'BAD_REQUEST'],
  ['balance of a malformed owner', () => d.raw('/api/sol/balance?owner=abc'), 400, 'BAD_REQUEST'],
  ['balance on another cluster', () => d.raw(`/api/sol/balance?owner=${empty}&net=solana`), 400, 'BAD_REQUEST'],
]

describe('Solana routes refuse bad input with 4xx { error, code }', () => {
  it.each(cases)('%s', async (_name, call, status, code) => {
    const r = await call()
    expect(r.body.code, JSON.stringify(r.body)).toBe(code)
    expect(r.status).toBe(status)
    expect(typeof r.body.error).toBe('string')
    expect(r.body.error.length).toBeGreaterThan(10)
  })

  it('a refused build reserves nothing and moves nothing', async () => {
    const info = (await d.raw('/api/sol/info')).body
    for (const m of Object.values(info.mints) as Array<{ inventory: number; available: number }>)
      expect(m.available).toBe(m.inventory)
    expect((await d.raw('/api/sol/recent')).body.swaps).toEqual([])
  })

  it('names the field and says what to do', async () => {
    const r = await swap({ user: '0xabc' })()
    expect(r.body.error).toMatch(/'user'/)
    expect((await c.post('/api/sol/swap', { user: empty })).body.error).toBe("missing field 'uiAmount'")
    expect((await c.get('/api/sol/redeem/quote')).body.error).toBe("missing query parameter 'amount'")
    const short = await c.post('/api/sol/swap', { user: empty, uiAmount: '1' })
    expect(short.body.error).toMatch(/fund the wallet or reduce the amount/)
    const slip = await c.get('/api/sol/redeem/quote?amount=20000')
    expect(slip.body.error).toMatch(/reduce the size to at most \d+/)
  })
})

describe('confirm of a signature nobody built', () => {
  it('answers unknown', async () => {
    const sig = bs58.encode(new Uint8Array(64).fill(9))
    const r = await c.get(`/api/sol/confirm?sig=${sig}`)
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ sig, status: 'unknown' })
  })
})
