import { getAddress } from 'viem'
import { describe, expect, it } from 'vitest'
import { NO_RULES, type PayeeRules, payeeRules, setPayeeRulesBody } from '../../../src/sdk/platform/policy.js'
import {
  enforce,
  hostMatches,
  networkMatches,
  payToMatches,
  refusalOf,
  type ScopedRules,
  tokenMatches,
} from './rules.js'

const rules = (agent: Partial<PayeeRules> = {}, user: Partial<PayeeRules> = {}): ScopedRules => ({
  agent: { ...NO_RULES, ...agent },
  user: { ...NO_RULES, ...user },
})
const SELLER = getAddress('0x00000000000000000000000000000000000000aa')
const BASE = { key: 'base', caip2: 'eip155:8453' }
const USDC = { symbol: 'USDC', address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' }

describe('matching', () => {
  it('*.example.com matches sub-domains at any depth, not example.com itself nor a look-alike', () => {
    expect(hostMatches('*.example.com', 'api.example.com')).toBe(true)
    expect(hostMatches('*.example.com', 'a.b.example.com')).toBe(true)
    expect(hostMatches('*.example.com', 'example.com')).toBe(false)
    expect(hostMatches('*.example.com', 'evilexample.com')).toBe(false)
    expect(hostMatches('api.example.com', 'API.example.com')).toBe(true)
    expect(hostMatches('api.example.com', 'x.api.example.com')).toBe(false)
  })

  it('payTo: EVM addresses in any case, Solana addresses exactly', () => {
    expect(payToMatches(SELLER, SELLER.toLowerCase())).toBe(true)
    expect(payToMatches(SELLER.toUpperCase().replace('0X', '0x'), SELLER)).toBe(true)
    expect(
      payToMatches('9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM', '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM'),
    ).toBe(true)
    expect(
      payToMatches('9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM', '9wzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM'),
    ).toBe(false)
  })

  it('a network by its parx name or its CAIP-2 id; a token by symbol (any case) or address (any case)', () => {
    expect(networkMatches('base', BASE)).toBe(true)
    expect(networkMatches('eip155:8453', BASE)).toBe(true)
    expect(networkMatches('eip155:84532', BASE)).toBe(false)
    expect(tokenMatches('USDC', USDC)).toBe(true)
    expect(tokenMatches('usdc', USDC)).toBe(true)
    expect(tokenMatches(USDC.address.toLowerCase(), USDC)).toBe(true)
    expect(tokenMatches('0x0000000000000000000000000000000000000001', USDC)).toBe(false)
  })
})

describe('refusalOf', () => {
  it('allows everything when no list is set', () => {
    expect(refusalOf(rules(), { host: 'a.test', payTo: SELLER, network: BASE, tokens: [USDC] })).toBeNull()
  })

  it('deny wins over allow, in the same scope and across scopes', () => {
    expect(refusalOf(rules({ allowPayTo: [SELLER], denyPayTo: [SELLER] }), { payTo: SELLER })).toMatchObject({
      rule: 'denyPayTo',
      scope: 'agent',
      value: SELLER,
    })
    expect(
      refusalOf(rules({ allowPayTo: [SELLER] }, { denyPayTo: [SELLER.toLowerCase()] }), { payTo: SELLER }),
    ).toMatchObject({ rule: 'denyPayTo', scope: 'user' })
  })

  it('an allow-list that is set and does not match refuses, whichever scope set it; an empty one refuses all', () => {
    expect(refusalOf(rules({}, { allowHosts: ['*.good.test'] }), { host: 'bad.test' })).toMatchObject({
      rule: 'allowHosts',
      scope: 'user',
      value: 'bad.test',
    })
    // The agent's list matching does not widen the user's.
    expect(
      refusalOf(rules({ allowHosts: ['bad.test'] }, { allowHosts: ['*.good.test'] }), { host: 'bad.test' }),
    ).toMatchObject({ rule: 'allowHosts', scope: 'user' })
    expect(refusalOf(rules({ allowNetworks: [] }), { network: BASE })).toMatchObject({
      rule: 'allowNetworks',
      scope: 'agent',
      value: 'base',
    })
    expect(
      refusalOf(rules({ allowHosts: ['x.good.test'] }, { allowHosts: ['*.good.test'] }), { host: 'x.good.test' }),
    ).toBeNull()
  })

  it('checks only what the spend names: a host rule does not touch a send', () => {
    expect(refusalOf(rules({ allowHosts: ['a.test'] }), { payTo: SELLER, network: BASE, tokens: [USDC] })).toBeNull()
  })

  it('a swap is refused when either of its tokens is', () => {
    const pusd = { symbol: 'PUSD', address: '0x0000000000000000000000000000000000000002' }
    expect(refusalOf(rules({ denyTokens: ['PUSD'] }), { network: BASE, tokens: [USDC, pusd] })).toMatchObject({
      rule: 'denyTokens',
      value: 'PUSD',
    })
    expect(refusalOf(rules({ allowTokens: ['USDC'] }), { network: BASE, tokens: [USDC, pusd] })).toMatchObject({
      rule: 'allowTokens',
      value: 'PUSD',
    })
  })

  it('reports hosts before payTo before network before token', () => {
    const all = rules({ denyHosts: ['a.test'], denyPayTo: [SELLER], denyNetworks: ['base'], denyTokens: ['USDC'] })
    expect(refusalOf(all, { host: 'a.test', payTo: SELLER, network: BASE, tokens: [USDC] })?.rule).toBe('denyHosts')
    expect(refusalOf(all, { payTo: SELLER, network: BASE, tokens: [USDC] })?.rule).toBe('denyPayTo')
    expect(refusalOf(all, { network: BASE, tokens: [USDC] })?.rule).toBe('denyNetworks')
  })
})

describe('enforce', () => {
  it('throws LIMIT_EXCEEDED naming the rule, scope and value; the agent host allow-list keeps limit allowedHosts', () => {
    expect(() => enforce(rules({ denyPayTo: [SELLER] }), { payTo: SELLER }, '1')).toThrow(
      expect.objectContaining({
        code: 'LIMIT_EXCEEDED',
        status: 403,
        fields: expect.objectContaining({
          limit: 'denyPayTo',
          rule: 'denyPayTo',
          scope: 'agent',
          value: SELLER,
          amountUsd: '1',
        }),
      }),
    )
    expect(() => enforce(rules({ allowHosts: ['a.test'] }), { host: 'b.test' })).toThrow(
      expect.objectContaining({ fields: expect.objectContaining({ limit: 'allowedHosts', rule: 'allowHosts' }) }),
    )
    expect(() => enforce(rules({}, { allowHosts: ['a.test'] }), { host: 'b.test' })).toThrow(
      expect.objectContaining({ fields: expect.objectContaining({ limit: 'allowHosts', scope: 'user' }) }),
    )
  })
})

describe('wire contract', () => {
  it('normalises entries: checksummed EVM payTo and token addresses, upper-case symbols, lower-case hosts', () => {
    const r = payeeRules.parse({
      ...NO_RULES,
      allowPayTo: [SELLER.toLowerCase()],
      allowTokens: ['usdc', USDC.address.toLowerCase()],
      denyHosts: ['*.Example.COM'],
    })
    expect(r.allowPayTo).toEqual([SELLER])
    expect(r.allowTokens).toEqual(['USDC', USDC.address])
    expect(r.denyHosts).toEqual(['*.example.com'])
  })

  it('refuses malformed entries and an empty body', () => {
    expect(setPayeeRulesBody.safeParse({ denyPayTo: ['0x123'] }).success).toBe(false)
    expect(setPayeeRulesBody.safeParse({ denyHosts: ['https://a.test/'] }).success).toBe(false)
    expect(setPayeeRulesBody.safeParse({ allowNetworks: ['Base Mainnet'] }).success).toBe(false)
    expect(setPayeeRulesBody.safeParse({}).success).toBe(false)
    expect(setPayeeRulesBody.safeParse({ clear: true }).success).toBe(true)
  })
})
