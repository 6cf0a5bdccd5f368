import { describe, expect, it } from 'vitest'
import { BaseError } from '../../errors/index.js'
import { networks } from '../../networks/registry.js'
import { createAgentBody } from './agents.js'
import { createEndpointBody } from './endpoints.js'
import { setLimitsBody } from './limits.js'
import { agentNetworks } from './networks.js'
import { parsePlatform } from './parse.js'
import { payBody } from './pay.js'
import { sendBodyFor, swapBodyFor } from './wallet.js'

const TO = '0x00000000000000000000000000000000000000aa'
const AGENT = '7d0e1c8a-3b1e-4f6a-9a52-3d2f0c1b9e01'

/** The BaseError a body is refused with, or a failure when it is accepted. */
function refusal(schema: Parameters<typeof parsePlatform>[0], body: unknown): { code: string; message: string } {
  try {
    parsePlatform(schema, body, 'body')
  } catch (e) {
    if (!(e instanceof BaseError)) throw e
    return { code: e.code, message: e.message }
  }
  throw new Error(`accepted ${JSON.stringify(body)}`)
}

describe('send body', () => {
  it('accepts a good body, checksums the address and defaults the token to TOKEN_A', () => {
    const b = parsePlatform(
      sendBodyFor('local-base'),
      { to: TO.toUpperCase().replace('0X', '0x'), amount: '12.5' },
      'body',
    )
    expect(b).toEqual({ to: '0x00000000000000000000000000000000000000AA', amount: '12.5', token: 'PUSD' })
    expect(
      parsePlatform(sendBodyFor('local-base'), { to: TO, amount: '0.000000000000000001', token: 'pusd' }, 'body').token,
    ).toBe('PUSD')
    expect(parsePlatform(sendBodyFor('local-base'), { to: TO, amount: '3', token: 'XUSD' }, 'body').token).toBe('XUSD')
  })

  it('refuses zero, negative, exponent and number amounts, naming the field', () => {
    const s = sendBodyFor('local-base')
    expect(refusal(s, { to: TO, amount: '0' })).toEqual({
      code: 'BAD_REQUEST',
      message: "invalid field 'amount': must be greater than zero",
    })
    expect(refusal(s, { to: TO, amount: '0.000' }).message).toMatch(/greater than zero/)
    for (const amount of ['-1', '1e3', '1,5', '.5', '01', '', ' ', '1.'])
      expect(refusal(s, { to: TO, amount }).message, amount).toMatch(/'amount': must be a decimal string/)
    expect(refusal(s, { to: TO, amount: 5 }).message).toBe(
      `invalid field 'amount': must be a decimal string like "12.5" (not a number)`,
    )
    expect(refusal(s, { to: TO }).message).toBe("missing field 'amount'")
  })

  it('refuses more decimals than the token has on that network', () => {
    // PUSD has 18 decimals on local-base and 6 on local-radius.
    expect(refusal(sendBodyFor('local-radius'), { to: TO, amount: '1.0000001' })).toEqual({
      code: 'BAD_REQUEST',
      message: "invalid field 'amount': has more than 6 decimal places, the precision of PUSD on local-radius",
    })
    expect(refusal(sendBodyFor('local-base'), { to: TO, amount: '1.0000000000000000001' }).message).toMatch(
      /more than 18 decimal places/,
    )
    // Trailing zeros add no precision.
    expect(parsePlatform(sendBodyFor('local-radius'), { to: TO, amount: '1.5000000' }, 'body').amount).toBe('1.5000000')
  })

  it('refuses malformed and zero addresses', () => {
    const s = sendBodyFor('local-base')
    for (const to of ['0x12', 'abc', `${TO}00`, TO.replace('aa', 'zz')]) {
      expect(refusal(s, { to, amount: '1' }).message, to).toBe(
        "invalid field 'to': not an EVM address (0x followed by 40 hex characters)",
      )
    }
    expect(refusal(s, { to: `0x${'0'.repeat(40)}`, amount: '1' }).message).toMatch(/zero address/)
  })

  it('refuses TOKEN_B on radius networks and unknown tokens with UNKNOWN_TOKEN, from the registry', () => {
    for (const net of ['local-radius', 'radius-testnet', 'radius']) {
      const r = refusal(sendBodyFor(net), { to: TO, amount: '1', token: 'XUSD' })
      expect(r.code).toBe('UNKNOWN_TOKEN')
      expect(r.message).toBe(
        `invalid field 'token': 'XUSD' is not a token of ${net} (XUSD, TOKEN_B, exists on Base networks only); ${net} has PUSD for sends`,
      )
    }
    expect(refusal(sendBodyFor('local-base'), { to: TO, amount: '1', token: 'DOGE' }).code).toBe('UNKNOWN_TOKEN')
    // Direct networks send TOKEN_A only (docs/platform-api.md "Networks and tokens"), although the registry lists USDC there for x402.
    expect(refusal(sendBodyFor('local-radius'), { to: TO, amount: '1', token: 'USDC' })).toEqual({
      code: 'UNKNOWN_TOKEN',
      message: "invalid field 'token': USDC cannot be used for sends on local-radius; use PUSD",
    })
    expect(refusal(sendBodyFor('local-base'), { to: TO, amount: '1', token: 'P-USD' }).message).toMatch(/token symbol/)
  })

  it('refuses unknown fields', () => {
    expect(refusal(sendBodyFor('local-base'), { to: TO, amount: '1', network: 'base' }).message).toMatch(
      /Unrecognized key/,
    )
  })
})

describe('swap body', () => {
  it('accepts the three SPEC pairs on Base networks', () => {
    for (const [from, to] of [
      ['USDC', 'PUSD'],
      ['PUSD', 'XUSD'],
      ['xusd', 'pusd'],
    ]) {
      expect(parsePlatform(swapBodyFor('local-base'), { from, to, amount: '2' }, 'body')).toEqual({
        from: from!.toUpperCase(),
        to: to!.toUpperCase(),
        amount: '2',
      })
    }
  })
  it('refuses other pairs, radius agents and USDC precision overruns', () => {
    expect(refusal(swapBodyFor('local-base'), { from: 'PUSD', to: 'USDC', amount: '1' }).code).toBe('UNSUPPORTED_PAIR')
    expect(refusal(swapBodyFor('local-radius'), { from: 'USDC', to: 'PUSD', amount: '1' })).toEqual({
      code: 'NETWORK_UNSUPPORTED',
      message: 'invalid request body: agents on local-radius cannot swap; swaps are on Base networks only',
    })
    expect(refusal(swapBodyFor('local-base'), { from: 'USDC', to: 'PUSD', amount: '1.0000001' }).message).toMatch(
      /more than 6 decimal places, the precision of USDC/,
    )
  })
})

describe('agent and endpoint bodies', () => {
  it('agents live on AA and direct networks, including tempo', () => {
    const keys = agentNetworks()
      .map((n) => n.key)
      .sort()
    expect(keys).toEqual([
      'base',
      'base-sepolia',
      'local-base',
      'local-radius',
      'radius',
      'radius-testnet',
      'tempo',
      'tempo-testnet',
    ])
    expect(parsePlatform(createAgentBody, { name: 'buyer', network: 'Local-Base' }, 'body')).toEqual({
      name: 'buyer',
      network: 'local-base',
    })
    expect(refusal(createAgentBody, { name: 'x', network: 'local-solana' })).toEqual({
      code: 'NETWORK_UNSUPPORTED',
      message: `invalid field 'network': 'local-solana' is not an agent network (local-solana exists but agents cannot live there); use one of ${agentNetworks()
        .map((n) => n.key)
        .join(', ')}`,
    })
    expect(refusal(createAgentBody, { name: '', network: 'local-base' }).message).toBe(
      "invalid field 'name': must not be empty",
    )
  })

  it('tempo is a direct-send EVM network with a 6-decimal TOKEN_A only', () => {
    expect(networks.tempo).toMatchObject({
      chainId: 4217,
      caip2: 'eip155:4217',
      family: 'evm',
      features: ['direct'],
      tokens: [{ symbol: 'PUSD', decimals: 6 }],
    })
    expect(networks['tempo-testnet']).toMatchObject({ chainId: 42431, kind: 'testnet', features: ['direct'] })
    expect(refusal(sendBodyFor('tempo'), { to: TO, amount: '1', token: 'USDC' }).code).toBe('UNKNOWN_TOKEN')
  })

  it('endpoints: price in a token of an x402 network, payTo an agent id or an address', () => {
    const good = {
      upstreamUrl: 'http://127.0.0.1:9/data',
      price: '0.01',
      network: 'local-base',
      token: 'PUSD',
      payTo: AGENT,
    }
    expect(parsePlatform(createEndpointBody, good, 'body')).toMatchObject({ payTo: AGENT, token: 'PUSD' })
    expect(parsePlatform(createEndpointBody, { ...good, payTo: TO }, 'body').payTo).toBe(
      '0x00000000000000000000000000000000000000AA',
    )
    expect(refusal(createEndpointBody, { ...good, payTo: 'bob' }).message).toBe(
      "invalid field 'payTo': must be one of your agent ids or an EVM address (not the zero address)",
    )
    expect(refusal(createEndpointBody, { ...good, network: 'local-radius', token: 'XUSD' }).code).toBe('UNKNOWN_TOKEN')
    expect(refusal(createEndpointBody, { ...good, network: 'tempo' }).code).toBe('NETWORK_UNSUPPORTED')
    expect(refusal(createEndpointBody, { ...good, upstreamUrl: 'file:///etc/passwd' }).message).toMatch(
      /'upstreamUrl': must be an http/,
    )
    expect(refusal(createEndpointBody, { ...good, price: '0.0000001', token: 'USDC' }).message).toMatch(
      /'price': has more than 6 decimal places/,
    )
  })
})

describe('limits and pay bodies', () => {
  it('limits: USD with at most 6 places, null clears, empty body refused', () => {
    expect(
      parsePlatform(
        setLimitsBody,
        { perPaymentUsd: '5', dailyUsd: null, allowedHosts: ['API.example.com', '*.x.org'] },
        'body',
      ),
    ).toEqual({ perPaymentUsd: '5', dailyUsd: null, allowedHosts: ['api.example.com', '*.x.org'] })
    expect(refusal(setLimitsBody, {}).message).toMatch(/at least one/)
    expect(refusal(setLimitsBody, { dailyUsd: '1.0000001' }).message).toBe(
      "invalid field 'dailyUsd': has more than 6 decimal places",
    )
    expect(refusal(setLimitsBody, { allowedHosts: ['https://x.org/'] }).message).toMatch(
      /'allowedHosts.0': must be a host name/,
    )
  })

  it('pay: url required, payment headers reserved, no body on GET, defaults', () => {
    expect(parsePlatform(payBody, { url: 'http://127.0.0.1:1/x' }, 'body')).toEqual({
      url: 'http://127.0.0.1:1/x',
      method: 'GET',
      headers: {},
      dryRun: false,
    })
    expect(refusal(payBody, { url: 'ftp://x' }).message).toMatch(/'url': must be an http/)
    expect(refusal(payBody, { url: 'http://a.b', headers: { 'X-Payment': 'forged' } }).message).toMatch(
      /'headers': may not set/,
    )
    expect(refusal(payBody, { url: 'http://a.b', body: 'x' }).message).toBe(
      "invalid field 'body': a GET has no body; use method POST",
    )
    expect(refusal(payBody, { url: 'http://a.b', maxAmount: '0' }).message).toMatch(
      /'maxAmount': must be greater than zero/,
    )
  })
})
