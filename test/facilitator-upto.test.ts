import { x402Client } from '@x402/core/client'
import { HTTPFacilitatorClient, x402ResourceServer } from '@x402/core/server'
import { toClientEvmSigner } from '@x402/evm'
import { UptoEvmScheme as UptoClient } from '@x402/evm/upto/client'
import { UptoEvmScheme as UptoServer } from '@x402/evm/upto/server'
import { paymentMiddleware, setSettlementOverrides } from '@x402/express'
import { wrapFetchWithPayment } from '@x402/fetch'
import express from 'express'
import { type Address, createWalletClient, erc20Abi, http, maxUint256, parseEther } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { settlementOf } from '../src/sdk/x402/client/fetch.js'
import { PERMIT2_ADDRESS } from '../src/sdk/x402/evm/permit2.js'
import { X402_UPTO_PERMIT2_PROXY } from '../src/sdk/x402/evm/upto.js'
import { paymentGate } from '../src/sdk/x402/seller/middleware.js'
import { settleAmount } from '../src/sdk/x402/seller/usage.js'
import type { PaymentRequirements, SupportedResponse } from '../src/sdk/x402/types.js'
import { decodeHeader } from '../src/sdk/x402/wire.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { evmPayer, localBase, randomAddress, settle, verify } from './helpers/x402.js'
import { listen } from './helpers/x402-buyers.js'

let d: TestDaemon
let parxSeller: { url: string; close(): Promise<void> }
let stockSeller: { url: string; close(): Promise<void> }
let payer: PrivateKeyAccount
const payTo = randomAddress()
const MAX = '50000' // 0.05 USDC: the most one request may cost

/** The payer's one-time setup the reference permit2 flows assume: ETH for gas, then approve(Permit2). */
async function approvePermit2(account: PrivateKeyAccount, symbol: string) {
  const chain = localBase(d).chain
  await chain.client.request({
    method: 'anvil_setBalance' as never,
    params: [account.address, `0x${parseEther('1').toString(16)}`] as never,
  })
  const wallet = createWalletClient({ account, chain: chain.client.chain, transport: http(chain.rpcUrl) })
  const hash = await wallet.writeContract({
    address: chain.tokens[symbol]!.address,
    abi: erc20Abi,
    functionName: 'approve',
    args: [PERMIT2_ADDRESS, maxUint256],
    chain: chain.client.chain,
  })
  await chain.client.waitForTransactionReceipt({ hash, pollingInterval: 20 })
}

/** A stock buyer: @x402/fetch with @x402/evm's upto client; `sent` collects the PAYMENT-SIGNATURE headers it sends. */
function uptoBuyer(account: PrivateKeyAccount, sent: string[] = []): typeof fetch {
  const client = x402Client.fromConfig({
    schemes: [
      { network: 'eip155:*', client: new UptoClient(toClientEvmSigner(account, d.services.base.client as never)) },
    ],
    spendControls: false,
  })
  const recording: typeof fetch = async (input, init) => {
    const h = new Headers(typeof input === 'object' && 'headers' in input ? input.headers : init?.headers)
    const sig = h.get('PAYMENT-SIGNATURE')
    if (sig) sent.push(sig)
    return fetch(input, init)
  }
  return wrapFetchWithPayment(recording, client)
}

const usdc = (who: Address) => localBase(d).balance('USDC', who)

beforeAll(async () => {
  d = await startTestDaemon()
  payer = await evmPayer(d, ['USDC'], '10')
  await approvePermit2(payer, 'USDC')
  const b = localBase(d)

  // Our seller middleware, metered: the handler reports what it used (?use=<base units>).
  const app = express()
  app.use(
    paymentGate({
      facilitator: { url: d.urls.facilitator },
      routes: {
        'GET /metered': { prices: [{ network: 'local-base', asset: 'USDC', amount: MAX, payTo, scheme: 'upto' }] },
      },
    }),
  )
  app.get('/metered', (req, res) => {
    if (typeof req.query.use === 'string') settleAmount(res, req.query.use)
    res.json({ used: req.query.use ?? 'all' })
  })
  parxSeller = await listen(app)

  // A stock seller: @x402/express with the reference's upto server scheme; only the facilitator URL is ours.
  const server = new x402ResourceServer(new HTTPFacilitatorClient({ url: d.urls.facilitator })).register(
    b.caip2 as `${string}:${string}`,
    new UptoServer(),
  )
  const stock = express()
  const usdcToken = b.token('USDC')
  stock.use(
    paymentMiddleware(
      {
        'GET /metered': {
          accepts: {
            scheme: 'upto',
            network: b.caip2 as `${string}:${string}`,
            payTo,
            price: {
              amount: MAX,
              asset: usdcToken.address,
              extra: { name: usdcToken.name, version: usdcToken.version },
            },
          },
        },
      },
      server,
    ),
  )
  stock.get('/metered', (req, res) => {
    setSettlementOverrides(res, { amount: String(req.query.use) })
    res.json({ used: req.query.use })
  })
  stockSeller = await listen(stock)
})
afterAll(async () => {
  await parxSeller?.close()
  await stockSeller?.close()
  await d?.close()
})

describe('upto (metered Permit2 payments) on the embedded chain', () => {
  it('is advertised in /supported for EVM networks with the address the witness must name, and its proxy is placed', async () => {
    const s = (await d.call('/facilitator/supported')) as SupportedResponse
    // Solana networks have upto kinds of their own (delegated-spl: test/facilitator-upto-solana.test.ts).
    const kinds = s.kinds.filter((k) => k.scheme === 'upto' && k.network.startsWith('eip155:'))
    expect(kinds.map((k) => k.network)).toContain(localBase(d).caip2)
    expect(kinds.every((k) => k.x402Version === 2)).toBe(true)
    expect(kinds[0]!.extra).toMatchObject({
      assetTransferMethod: 'permit2',
      facilitatorAddress: d.services.accounts.facilitator,
    })
    expect(await localBase(d).chain.client.getCode({ address: X402_UPTO_PERMIT2_PROXY })).not.toBe('0x')
  })

  it('settles exactly what the handler used when it is below the signed maximum (our seller middleware)', async () => {
    const [payerBefore, sellerBefore] = [await usdc(payer.address), await usdc(payTo)]
    const res = await uptoBuyer(payer)(`${parxSeller.url}/metered?use=12345`)
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ used: '12345' })
    expect(res.headers.get('Settlement-Overrides')).toBeNull()
    expect(settlementOf(res)).toMatchObject({
      success: true,
      payer: payer.address,
      network: localBase(d).caip2,
      amount: '12345',
    })
    expect((await usdc(payTo)) - sellerBefore).toBe(12345n)
    expect(payerBefore - (await usdc(payer.address))).toBe(12345n)
  })

  it('settles the used amount for the official @x402/express seller too', async () => {
    const sellerBefore = await usdc(payTo)
    const res = await uptoBuyer(payer)(`${stockSeller.url}/metered?use=777`)
    expect(res.status).toBe(200)
    expect((await usdc(payTo)) - sellerBefore).toBe(777n)
  })

  it('refuses to settle above the signed maximum, moving nothing and withholding the body', async () => {
    const [payerBefore, sellerBefore] = [await usdc(payer.address), await usdc(payTo)]
    const res = await uptoBuyer(payer)(`${parxSeller.url}/metered?use=${BigInt(MAX) + 1n}`)
    expect(res.status).toBe(402)
    const response = decodeHeader<{ success: boolean; errorReason: string; errorMessage: string }>(
      res.headers.get('PAYMENT-RESPONSE'),
    )
    expect(response).toMatchObject({
      success: false,
      errorReason: 'invalid_upto_evm_payload_settlement_exceeds_amount',
    })
    expect(response!.errorMessage).toContain('more than the 50000 the payer signed for')
    expect(await usdc(payTo)).toBe(sellerBefore)
    expect(await usdc(payer.address)).toBe(payerBefore)
  })

  it('refuses a replayed payment: the same signature pays once', async () => {
    const sent: string[] = []
    const sellerBefore = await usdc(payTo)
    const first = await uptoBuyer(payer, sent)(`${parxSeller.url}/metered?use=1000`)
    expect(first.status).toBe(200)
    expect(sent).toHaveLength(1)
    const again = await fetch(`${parxSeller.url}/metered?use=1000`, { headers: { 'PAYMENT-SIGNATURE': sent[0]! } })
    expect(again.status).toBe(402)
    expect(await usdc(payTo)).toBe(sellerBefore + 1000n)
    // And straight at the facilitator: the authorization is spent.
    const payload = decodeHeader<Record<string, unknown>>(sent[0])!
    const r = { ...(payload.accepted as PaymentRequirements), amount: '1000' }
    const replay = await settle(d, { x402Version: 2, paymentPayload: payload, paymentRequirements: r })
    expect(replay.body).toMatchObject({ success: false, errorReason: 'duplicate_settlement' })
    expect(await usdc(payTo)).toBe(sellerBefore + 1000n)
  })

  it('charges the whole maximum when the handler reports nothing, and nothing (no transaction) when it reports zero', async () => {
    const sellerBefore = await usdc(payTo)
    const all = await uptoBuyer(payer)(`${parxSeller.url}/metered`)
    expect(all.status).toBe(200)
    expect((await usdc(payTo)) - sellerBefore).toBe(BigInt(MAX))
    const none = await uptoBuyer(payer)(`${parxSeller.url}/metered?use=0`)
    expect(none.status).toBe(200)
    expect(settlementOf(none)).toMatchObject({ success: true, transaction: '' })
    expect((await usdc(payTo)) - sellerBefore).toBe(BigInt(MAX))
  })

  it("at verify, rejects a witness naming another facilitator and a maximum other than the requirements' amount", async () => {
    const s = (await d.call('/facilitator/supported')) as SupportedResponse
    const kind = s.kinds.find(
      (k) => k.scheme === 'upto' && k.network === localBase(d).caip2 && k.extra?.symbol === 'USDC',
    )!
    const r: PaymentRequirements = {
      scheme: 'upto',
      network: kind.network,
      asset: String(kind.extra!.asset),
      amount: MAX,
      payTo,
      maxTimeoutSeconds: 120,
      extra: {
        assetTransferMethod: 'permit2',
        facilitatorAddress: kind.extra!.facilitatorAddress,
        name: kind.extra!.name,
        version: kind.extra!.version,
      },
    }
    const client = new UptoClient(toClientEvmSigner(payer, d.services.base.client as never))
    const sign = async (terms: PaymentRequirements) => ({
      ...(await client.createPaymentPayload(2, terms as never)),
      x402Version: 2,
      accepted: terms,
    })
    const good = await sign(r)
    expect(await verify(d, { x402Version: 2, paymentPayload: good, paymentRequirements: r })).toMatchObject({
      isValid: true,
      payer: payer.address,
    })
    const other = await sign({ ...r, extra: { ...r.extra, facilitatorAddress: randomAddress() } })
    expect(await verify(d, { x402Version: 2, paymentPayload: other, paymentRequirements: r })).toMatchObject({
      isValid: false,
      invalidReason: 'upto_facilitator_mismatch',
    })
    expect(
      await verify(d, { x402Version: 2, paymentPayload: good, paymentRequirements: { ...r, amount: '1' } }),
    ).toMatchObject({ isValid: false, invalidReason: 'permit2_amount_mismatch' })
    // A tampered signature: the payer is an EOA, so ecrecover decides.
    const sig = (good.payload as { signature: string }).signature
    const bad = {
      ...good,
      payload: { ...good.payload, signature: `${sig.slice(0, 10)}${sig[10] === 'a' ? 'b' : 'a'}${sig.slice(11)}` },
    }
    expect(await verify(d, { x402Version: 2, paymentPayload: bad, paymentRequirements: r })).toMatchObject({
      isValid: false,
      invalidReason: 'invalid_permit2_signature',
    })
  })
})
