import { randomBytes, randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { Challenge, Credential } from 'mppx'
import { describe, expect, it } from 'vitest'
import type { EvmChain } from '../chains/evm/chain.js'
import type { EndpointRow } from './endpoints.js'
import { acceptMppSecrets, forgetMppGates, MAX_MPP_GATES, mppGate, mppGatesKept } from './paid-mpp.js'

/** MPP challenges outlive a change of the key that binds them (HKDF derivation, platform key rotation) until they expire. */
const chain = {
  chainId: 84532,
  tokens: {
    USDC: {
      symbol: 'USDC',
      address: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
      decimals: 6,
      eip3009: true,
      permitDomain: { name: 'USDC', version: '2' },
    },
  },
} as unknown as EvmChain
const endpoint = (id: string, price = '0.01') =>
  ({
    id,
    token: 'USDC',
    pay_to: '0x00000000000000000000000000000000000000aa',
    price,
    name: null,
  }) as unknown as EndpointRow
const request = (id: string) =>
  ({ headers: { host: '127.0.0.1' }, url: `/paid/${id}`, method: 'GET' }) as unknown as IncomingMessage
const secret = () => randomBytes(32).toString('hex')

/** A credential for a challenge the gate of `issuer` made (its payload is not a payment: only the binding is under test). */
async function credentialFrom(id: string, issuer: string): Promise<string> {
  const header = await mppGate({
    endpoint: endpoint(id),
    chain,
    facilitatorUrl: 'http://127.0.0.1:9/',
    secret: issuer,
  })!.challenge(request(id))
  return Credential.serialize(
    Credential.from({ challenge: Challenge.deserialize(header!), payload: { type: 'authorization' } }),
  )
}

describe('mppGate', () => {
  it('accepts a challenge issued under an older key it was told of, and refuses one of a key it was not', async () => {
    const id = randomUUID()
    const [old, current, stranger] = [secret(), secret(), secret()]
    const credential = await credentialFrom(id, old)
    acceptMppSecrets(current, [old])
    const accepted = await mppGate({
      endpoint: endpoint(id),
      chain,
      facilitatorUrl: 'http://127.0.0.1:9/',
      secret: current,
    })!.validate(credential)
    // Past the binding: refused for its payload, not for who issued it.
    expect(accepted.ok).toBe(false)
    expect(accepted.ok ? '' : accepted.reason).not.toMatch(/not issued by this server/)
    const refused = await mppGate({
      endpoint: endpoint(id),
      chain,
      facilitatorUrl: 'http://127.0.0.1:9/',
      secret: stranger,
    })!.validate(credential)
    expect(refused.ok ? '' : refused.reason).toMatch(/not issued by this server/)
  })
})

describe('the gate cache', () => {
  const gate = (id: string, key: string, price?: string) =>
    mppGate({ endpoint: endpoint(id, price), chain, facilitatorUrl: 'http://127.0.0.1:9/', secret: key })!

  it('keeps at most MAX_MPP_GATES, dropping the least recently used', () => {
    const key = secret()
    const kept = randomUUID()
    const first = gate(kept, key)
    const dropped = randomUUID()
    const gone = gate(dropped, key)
    for (let i = 0; i < MAX_MPP_GATES + 50; i++) {
      gate(randomUUID(), key)
      // Used all along: never the least recently used.
      if (i % 100 === 0) expect(gate(kept, key)).toBe(first)
    }
    expect(mppGatesKept()).toBe(MAX_MPP_GATES)
    expect(gate(kept, key)).toBe(first)
    expect(gate(dropped, key)).not.toBe(gone)
  })

  it("drops a deleted endpoint's gates, and rebuilds one whose terms changed in its place", () => {
    const [id, key, other] = [randomUUID(), secret(), secret()]
    const before = gate(id, key)
    gate(id, other)
    expect(gate(id, key)).toBe(before)
    const n = mppGatesKept()
    const repriced = gate(id, key, '0.02')
    expect(repriced).not.toBe(before)
    expect(mppGatesKept()).toBe(n)
    forgetMppGates(id)
    expect(mppGatesKept()).toBe(n - 2)
    expect(gate(id, key, '0.02')).not.toBe(repriced)
  })
})
