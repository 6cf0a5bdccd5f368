import { HTTPFacilitatorClient, x402ResourceServer } from '@x402/core/server'
import { ExactEvmScheme } from '@x402/evm/exact/server'
import { paymentMiddleware } from '@x402/express'
import { declareEip2612GasSponsoringExtension } from '@x402/extensions'
import express from 'express'
import { type Address, erc20Abi, maxUint256 } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { settlementOf } from '../src/sdk/x402/client/fetch.js'
import { PERMIT2_ADDRESS, permit2TypedData, X402_EXACT_PERMIT2_PROXY } from '../src/sdk/x402/evm/permit2.js'
import { permitTypedData } from '../src/sdk/x402/evm/typed-data.js'
import type { PaymentRequirements } from '../src/sdk/x402/types.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import {
  evmPayer,
  localBase,
  nowSeconds,
  randomAddress,
  requirements,
  settle,
  verify,
  type X402Body,
} from './helpers/x402.js'
import { listen, officialBuyer } from './helpers/x402-buyers.js'

/**
 * The reference's EIP-2612 gas-sponsoring extension for permit2: a wallet holding PUSD and no ETH,
 * which never approved Permit2, pays a seller behind the official @x402/express middleware with
 * the official @x402/fetch client; our facilitator submits the payer's EIP-2612 permit for Permit2
 * in the settlement (settleWithPermit). The extension's checks carry the reference's reasons.
 */
let d: TestDaemon
let seller: { url: string; close(): Promise<void> }
const payTo = randomAddress()
const PUSD_PRICE = 10n ** 16n // 0.01 PUSD

beforeAll(async () => {
  d = await startTestDaemon()
  const b = localBase(d)
  const server = new x402ResourceServer(new HTTPFacilitatorClient({ url: d.urls.facilitator })).register(
    b.caip2 as `${string}:${string}`,
    new ExactEvmScheme(),
  )
  const app = express()
  app.use(
    paymentMiddleware(
      {
        'GET /report': {
          accepts: {
            scheme: 'exact',
            network: b.caip2 as `${string}:${string}`,
            payTo,
            price: {
              amount: String(PUSD_PRICE),
              asset: b.token('PUSD').address,
              extra: { assetTransferMethod: 'permit2', name: b.token('PUSD').name, version: b.token('PUSD').version },
            },
          },
          extensions: { ...declareEip2612GasSponsoringExtension() },
        },
      },
      server,
    ),
  )
  app.get('/report', (_req, res) => void res.json({ paid: 'permit2 with a sponsored EIP-2612 permit' }))
  seller = await listen(app)
}, 120_000)
afterAll(async () => {
  await seller?.close()
  await d?.close()
})

const allowance = (owner: Address) =>
  localBase(d).chain.client.readContract({
    address: localBase(d).token('PUSD').address,
    abi: erc20Abi,
    functionName: 'allowance',
    args: [owner, PERMIT2_ADDRESS],
  })

/** A permit2 payment plus the extension, signed as @x402/evm signs them; `o` bends one field of the permit. */
async function sponsoredBody(
  payer: PrivateKeyAccount,
  r: PaymentRequirements,
  o: Partial<{ from: Address; spender: Address; value: bigint; deadline: bigint }> = {},
): Promise<X402Body> {
  const b = localBase(d)
  const a = {
    token: r.asset as Address,
    amount: BigInt(r.amount),
    spender: X402_EXACT_PERMIT2_PROXY,
    nonce: BigInt(Math.floor(Math.random() * 2 ** 48)),
    deadline: nowSeconds() + 120n,
    to: r.payTo as Address,
    validAfter: 0n,
  }
  const signature = await payer.signTypedData(permit2TypedData(b.chain.chainId, a))
  const t = b.token('PUSD')
  const value = o.value ?? maxUint256
  const deadline = o.deadline ?? nowSeconds() + 120n
  const spender = o.spender ?? PERMIT2_ADDRESS
  const nonce = await b.permitNonce('PUSD', payer.address)
  const permitSig = await payer.signTypedData(
    permitTypedData(
      { name: t.name, version: t.version, chainId: b.chain.chainId, verifyingContract: t.address },
      { owner: payer.address, spender, value, nonce, deadline },
    ) as never,
  )
  const info = {
    from: o.from ?? payer.address,
    asset: t.address,
    spender,
    amount: value.toString(),
    nonce: nonce.toString(),
    deadline: deadline.toString(),
    signature: permitSig,
    version: '1',
  }
  const permit2Authorization = {
    from: payer.address,
    permitted: { token: a.token, amount: a.amount.toString() },
    spender: a.spender,
    nonce: a.nonce.toString(),
    deadline: a.deadline.toString(),
    witness: { to: a.to, validAfter: '0' },
  }
  return {
    x402Version: 2,
    paymentPayload: {
      x402Version: 2,
      accepted: r,
      payload: { signature, permit2Authorization },
      extensions: { eip2612GasSponsoring: { info, schema: {} } },
    },
    paymentRequirements: r,
  }
}

describe('permit2 with EIP-2612 gas sponsoring', () => {
  it('is advertised in /supported extensions', async () => {
    expect((await d.call('/facilitator/supported')).extensions).toContain('eip2612GasSponsoring')
  })

  it('a wallet with PUSD, no ETH and no Permit2 approval pays with the official @x402/fetch client, twice', async () => {
    const payer = await evmPayer(d, ['PUSD'], '1')
    const chain = localBase(d).chain
    expect(await chain.client.getBalance({ address: payer.address })).toBe(0n)
    expect(await allowance(payer.address)).toBe(0n)
    const res = await officialBuyer(d, payer)(`${seller.url}/report`)
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ paid: 'permit2 with a sponsored EIP-2612 permit' })
    expect(settlementOf(res)).toMatchObject({ success: true, payer: payer.address })
    expect(await localBase(d).balance('PUSD', payTo)).toBe(PUSD_PRICE)
    expect(await localBase(d).balance('PUSD', payer.address)).toBe(10n ** 18n - PUSD_PRICE)
    // The client permitted Permit2 exactly the price (its EIP-2612 nonce moved), and Permit2 spent it.
    expect(await localBase(d).permitNonce('PUSD', payer.address)).toBe(1n)
    expect(await allowance(payer.address)).toBe(0n)
    // So the next payment carries a fresh permit again.
    const again = await officialBuyer(d, payer)(`${seller.url}/report`)
    expect(again.status).toBe(200)
    expect(await localBase(d).permitNonce('PUSD', payer.address)).toBe(2n)
    expect(await localBase(d).balance('PUSD', payTo)).toBe(2n * PUSD_PRICE)
    expect(await chain.client.getBalance({ address: payer.address })).toBe(0n)
  }, 60_000)

  it('refuses a bent extension by the reference reasons, and settles a sound one once', async () => {
    const payer = await evmPayer(d, ['PUSD'], '1')
    const r = requirements(d, { symbol: 'PUSD', amount: '0.01', payTo, method: 'permit2' })
    const reason = async (b: X402Body) => (await verify(d, b)).invalidReason
    expect(await reason(await sponsoredBody(payer, r, { from: randomAddress() }))).toBe('eip2612_from_mismatch')
    expect(await reason(await sponsoredBody(payer, r, { spender: X402_EXACT_PERMIT2_PROXY }))).toBe(
      'eip2612_spender_not_permit2',
    )
    expect(await reason(await sponsoredBody(payer, r, { deadline: nowSeconds() + 2n }))).toBe(
      'eip2612_deadline_expired',
    )
    expect(await reason(await sponsoredBody(payer, r, { value: PUSD_PRICE - 1n }))).toBe('permit2_2612_amount_mismatch')
    const bad = await sponsoredBody(payer, r)
    ;(
      bad.paymentPayload.extensions as { eip2612GasSponsoring: { info: { signature: string } } }
    ).eip2612GasSponsoring.info.signature = '0x1234'
    expect(await reason(bad)).toBe('invalid_eip2612_extension_format')
    // Without the extension a wallet that never approved Permit2 is refused as before.
    const plain = await sponsoredBody(payer, r)
    delete (plain.paymentPayload as { extensions?: unknown }).extensions
    expect(await reason(plain)).toBe('permit2_allowance_required')

    const body = await sponsoredBody(payer, r)
    expect(await verify(d, body)).toEqual({ isValid: true, payer: payer.address })
    const before = await localBase(d).balance('PUSD', payTo)
    const first = await settle(d, body)
    expect(first.body).toMatchObject({ success: true, payer: payer.address })
    expect((await settle(d, body)).body).toMatchObject({ success: false, errorReason: 'duplicate_settlement' })
    expect(await localBase(d).balance('PUSD', payTo)).toBe(before + PUSD_PRICE)
    expect(await localBase(d).chain.client.getBalance({ address: payer.address })).toBe(0n)
  }, 60_000)
})
