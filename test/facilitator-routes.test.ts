import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { networks } from '../src/networks/registry.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { eip3009Body, evmPayer, localBase, post, randomAddress, requirements } from './helpers/x402.js'

let d: TestDaemon

beforeAll(async () => {
  d = await startTestDaemon()
})
afterAll(async () => d?.close())

const served = ['local-base', 'local-radius', 'local-solana'].map((k) => networks[k]!)

describe('GET /facilitator/supported and /health', () => {
  it('lists one kind per network, asset and version, with signers for both families', async () => {
    const s = await d.call<{ kinds: any[]; extensions: string[]; signers: Record<string, string[]> }>(
      '/facilitator/supported',
    )
    expect(s.extensions).toEqual(['eip2612GasSponsoring', 'payment-identifier', 'bazaar'])
    expect(s.signers).toEqual({
      'eip155:*': [d.services.accounts.facilitator],
      'solana:*': [d.services.accounts.solanaFacilitator],
    })
    for (const net of served) {
      const symbols = net.tokens.map((t) => t.symbol).sort()
      for (const [version, name] of [
        [2, net.caip2],
        [1, net.legacyName],
      ] as const) {
        const kinds = s.kinds.filter((k) => k.x402Version === version && k.network === name && k.scheme === 'exact')
        expect(kinds.map((k) => k.extra.symbol).sort(), `${name} v${version}`).toEqual(symbols)
        for (const k of kinds) {
          expect(k.scheme).toBe('exact')
          expect(k.extra.assetTransferMethod).toBe(net.family === 'evm' ? 'erc2612' : 'delegated-spl')
          expect(typeof k.extra.name).toBe('string')
          expect(typeof k.extra.version).toBe('string')
        }
      }
    }
    const usdc = s.kinds.find(
      (k) => k.x402Version === 2 && k.network === localBase(d).caip2 && k.extra.symbol === 'USDC',
    )
    expect(usdc.extra).toMatchObject({
      name: 'USD Coin',
      version: '2',
      spender: d.services.accounts.facilitator,
      asset: localBase(d).token('USDC').address,
    })
    expect(usdc.extra.assetTransferMethods).toEqual(['erc2612', 'eip3009', 'permit2'])
    // Metered payments: v2, one kind per token; on EVM naming the facilitator the payer's witness
    // must name (permit2), on Solana the delegate the payer approved (delegated-spl).
    const upto = s.kinds.filter((k) => k.scheme === 'upto')
    expect(upto.map((k) => `${k.network} ${k.extra.symbol}`).sort()).toEqual(
      served.flatMap((n) => n.tokens.map((t) => `${n.caip2} ${t.symbol}`)).sort(),
    )
    for (const k of upto.filter((k) => k.network.startsWith('eip155:'))) {
      expect(k).toMatchObject({
        x402Version: 2,
        extra: { assetTransferMethod: 'permit2', facilitatorAddress: d.services.accounts.facilitator },
      })
    }
    for (const k of upto.filter((k) => k.network.startsWith('solana:'))) {
      const signer = d.services.accounts.solanaFacilitator
      expect(k).toMatchObject({
        x402Version: 2,
        extra: {
          assetTransferMethod: 'delegated-spl',
          assetTransferMethods: ['delegated-spl'],
          feePayer: signer,
          delegate: signer,
        },
      })
    }
  })

  it('reports health without a key', async () => {
    expect(await d.call('/facilitator/health')).toEqual({ status: 'ok', service: 'parx-facilitator' })
  })
})

describe('X-API-Key on mainnet networks', () => {
  const mainnetBody = (network: string) => ({
    x402Version: 2,
    paymentPayload: { x402Version: 2, accepted: { scheme: 'exact', network }, payload: {} },
    paymentRequirements: {
      scheme: 'exact',
      network,
      asset: randomAddress(),
      amount: '1',
      payTo: randomAddress(),
      maxTimeoutSeconds: 60,
      extra: {},
    },
  })

  for (const op of ['verify', 'settle'] as const) {
    it(`${op}: a mainnet network without a valid key is 401, with one it is answered`, async () => {
      const none = await post(d, op, mainnetBody('eip155:8453'))
      expect(none.status).toBe(401)
      expect(none.body).toEqual({
        error: 'missing or invalid x-api-key',
        code: 'UNAUTHORIZED',
        requestId: expect.any(String),
      })
      const wrong = await post(d, op, mainnetBody('eip155:8453'), {
        'X-API-Key': 'parx-0123456789abcdef0123456789abcdef',
      })
      expect(wrong.status).toBe(401)
      const key = await d.partnerKey()
      const ok = await post(d, op, mainnetBody('eip155:8453'), { 'X-API-Key': key })
      // Authorized, then refused as a payment: this local daemon does not serve Base mainnet.
      expect(ok.body[op === 'verify' ? 'invalidReason' : 'errorReason']).toBe('invalid_network')
      const v1Name = await post(d, op, mainnetBody('solana'))
      expect(v1Name.status).toBe(401)
    })

    it(`${op}: testnet and local networks need no key`, async () => {
      const testnet = await post(d, op, mainnetBody('eip155:84532'))
      expect(testnet.status).not.toBe(401)
      expect(testnet.body[op === 'verify' ? 'invalidReason' : 'errorReason']).toBe('invalid_network')
    })
  }
})

describe('requests that are not payments', () => {
  it('answers malformed HTTP input with {error, code}', async () => {
    const notJson = await d.raw('/facilitator/verify', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{',
    })
    expect(notJson.status).toBe(400)
    expect(notJson.body.code).toBe('MALFORMED_JSON')
    const missing = await post(d, 'settle', { paymentPayload: {} })
    expect(missing.status).toBe(400)
    expect(missing.body).toEqual({
      error: "missing field 'paymentRequirements'",
      code: 'BAD_REQUEST',
      requestId: expect.any(String),
    })
  })

  it('names unknown versions, schemes and networks with the reference reasons', async () => {
    const payer = await evmPayer(d, ['USDC'])
    const body = await eip3009Body(d, payer, requirements(d, { symbol: 'USDC', amount: '1', payTo: randomAddress() }))
    const bend = (f: (b: any) => void) => {
      const b = JSON.parse(JSON.stringify(body))
      f(b)
      return b
    }
    const reason = async (b: unknown) => (await post(d, 'verify', b)).body.invalidReason
    expect(await reason(bend((b) => (b.paymentPayload.x402Version = 3)))).toBe('invalid_x402_version')
    expect(
      await reason(
        bend((b) => ((b.paymentPayload.accepted.scheme = 'stream'), (b.paymentRequirements.scheme = 'stream'))),
      ),
    ).toBe('unsupported_scheme')
    expect(await reason(bend((b) => (b.paymentPayload.accepted.scheme = 'stream')))).toBe('unsupported_scheme')
    expect(await reason(bend((b) => (b.paymentRequirements.scheme = 'stream')))).toBe('invalid_scheme')
    // upto is served, but an exact payload is not an upto one.
    expect(
      await reason(bend((b) => ((b.paymentPayload.accepted.scheme = 'upto'), (b.paymentRequirements.scheme = 'upto')))),
    ).toBe('invalid_payload')
    expect(
      await reason(
        bend(
          (b) => (
            (b.paymentPayload.accepted.network = 'eip155:999999'), (b.paymentRequirements.network = 'eip155:999999')
          ),
        ),
      ),
    ).toBe('invalid_network')
    expect(await reason(bend((b) => (b.paymentRequirements.network = 'local-radius')))).toBe('invalid_network')
    expect(await reason(bend((b) => (b.paymentRequirements.asset = randomAddress())))).toBe(
      'invalid_payment_requirements',
    )
    expect(await reason(bend((b) => (b.paymentRequirements.extra.assetTransferMethod = 'eip7777')))).toBe(
      'unsupported_scheme',
    )
    // A permit2 requirement read with an eip3009 payload: no permit2Authorization to check.
    expect(await reason(bend((b) => (b.paymentRequirements.extra.assetTransferMethod = 'permit2')))).toBe(
      'invalid_payload',
    )
    expect(await reason(bend((b) => delete b.paymentPayload.payload.signature))).toBe('invalid_payload')
    expect(await reason(bend((b) => (b.paymentPayload.payload.authorization.value = 'lots')))).toBe('invalid_payload')
    expect(await reason(bend((b) => delete b.paymentRequirements.payTo))).toBe('invalid_payment_requirements')
    const settled = await post(
      d,
      'settle',
      bend((b) => delete b.paymentPayload.payload.authorization),
    )
    expect(settled.status).toBe(422)
    expect(settled.body).toMatchObject({ success: false, errorReason: 'invalid_payload', transaction: '' })
  })
})
