import { Keypair } from '@solana/web3.js'
import { HTTPFacilitatorClient, x402ResourceServer } from '@x402/core/server'
import { ExactEvmScheme } from '@x402/evm/exact/server'
import { paymentMiddleware } from '@x402/express'
import express from 'express'
import type { PrivateKeyAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { settlementOf } from '../src/sdk/x402/client/fetch.js'
import { ParxEvmServerScheme } from '../src/sdk/x402/plugins/evm-server.js'
import { ParxSvmServerScheme } from '../src/sdk/x402/plugins/svm-server.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { evmPayer, localBase, localSolana, randomAddress, solanaPayer } from './helpers/x402.js'
import { listen, officialBuyer, officialBuyerWithParxPlugins, parxBuyer } from './helpers/x402-buyers.js'

let d: TestDaemon
let stock: { url: string; close(): Promise<void> }
let withPlugins: { url: string; close(): Promise<void> }
let payer: PrivateKeyAccount
let solPayer: Keypair
const payTo = randomAddress()
const solPayTo = Keypair.generate().publicKey
const PRICE = '10000' // 0.01 USDC
const PUSD_PRICE = '10000000000000000' // 0.01 PUSD

beforeAll(async () => {
  d = await startTestDaemon()
  payer = await evmPayer(d, ['USDC', 'PUSD'], '10')
  solPayer = await solanaPayer(d, 'USDC', '10')
  await localSolana(d).approve(solPayer, 'USDC', 1_000_000n)
  const b = localBase(d)
  const usdc = b.token('USDC')
  const pusd = b.token('PUSD')

  // A seller exactly as the x402 docs set one up: only the facilitator URL is ours.
  const stockServer = new x402ResourceServer(new HTTPFacilitatorClient({ url: d.urls.facilitator })).register(
    b.caip2 as `${string}:${string}`,
    new ExactEvmScheme(),
  )
  const a = express()
  a.use(
    paymentMiddleware(
      {
        'GET /usdc': {
          accepts: {
            scheme: 'exact',
            network: b.caip2 as `${string}:${string}`,
            payTo,
            price: { amount: PRICE, asset: usdc.address, extra: { name: usdc.name, version: usdc.version } },
          },
        },
      },
      stockServer,
    ),
  )
  a.get('/usdc', (_req, res) => void res.json({ paid: 'usdc' }))
  stock = await listen(a)

  // The same middleware with parx's server plugins registered: it can now offer erc2612 and delegated-spl.
  const sol = localSolana(d)
  const pluginServer = new x402ResourceServer(new HTTPFacilitatorClient({ url: d.urls.facilitator }))
    .register(b.caip2 as `${string}:${string}`, new ParxEvmServerScheme())
    .register(sol.caip2 as `${string}:${string}`, new ParxSvmServerScheme())
  const p = express()
  p.use(
    paymentMiddleware(
      {
        'GET /pusd': {
          accepts: {
            scheme: 'exact',
            network: b.caip2 as `${string}:${string}`,
            payTo,
            price: { amount: PUSD_PRICE, asset: pusd.address, extra: { name: pusd.name, version: pusd.version } },
          },
        },
        'GET /sol': {
          accepts: {
            scheme: 'exact',
            network: sol.caip2 as `${string}:${string}`,
            payTo: solPayTo.toBase58(),
            price: { amount: PRICE, asset: sol.mint('USDC').mint.toBase58() },
          },
        },
      },
      pluginServer,
    ),
  )
  p.get('/pusd', (_req, res) => void res.json({ paid: 'pusd' }))
  p.get('/sol', (_req, res) => void res.json({ paid: 'sol' }))
  withPlugins = await listen(p)
})
afterAll(async () => {
  await stock?.close()
  await withPlugins?.close()
  await d?.close()
})

const balance = (symbol: string) => localBase(d).balance(symbol, payTo)

describe('a seller behind the official @x402/express middleware', () => {
  it('is paid by the official @x402/fetch client with eip3009 on USDC, exactly once', async () => {
    const before = await balance('USDC')
    const res = await officialBuyer(d, payer)(`${stock.url}/usdc`)
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ paid: 'usdc' })
    expect(settlementOf(res)).toMatchObject({ success: true, payer: payer.address, network: localBase(d).caip2 })
    expect((await balance('USDC')) - before).toBe(BigInt(PRICE))
  })

  it('is paid by the parx client too', async () => {
    const before = await balance('USDC')
    const res = await parxBuyer(d, { evm: payer })(`${stock.url}/usdc`)
    expect(res.status).toBe(200)
    expect((await balance('USDC')) - before).toBe(BigInt(PRICE))
  })

  it('with parx server plugins, takes erc2612 on PUSD from the parx client and from @x402/fetch with parx client plugins', async () => {
    for (const buy of [parxBuyer(d, { evm: payer }), officialBuyerWithParxPlugins(d, { evm: payer })]) {
      const before = await balance('PUSD')
      const res = await buy(`${withPlugins.url}/pusd`)
      expect(res.status).toBe(200)
      expect(settlementOf(res)).toMatchObject({ success: true, payer: payer.address })
      expect((await balance('PUSD')) - before).toBe(BigInt(PUSD_PRICE))
    }
  })

  it('with parx server plugins, takes delegated-spl on local-solana', async () => {
    const s = localSolana(d)
    for (const buy of [parxBuyer(d, { solana: solPayer }), officialBuyerWithParxPlugins(d, { solana: solPayer })]) {
      const before = await s.balance('USDC', solPayTo)
      const res = await buy(`${withPlugins.url}/sol`)
      expect(res.status).toBe(200)
      expect(settlementOf(res)).toMatchObject({ success: true, payer: solPayer.publicKey.toBase58(), network: s.caip2 })
      expect((await s.balance('USDC', solPayTo)) - before).toBe(BigInt(PRICE))
    }
  })
})
