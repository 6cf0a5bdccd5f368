import { randomBytes, randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { Challenge, Credential } from 'mppx'
import { describe, expect, it } from 'vitest'
import type { EvmChain } from '../chains/evm/chain.js'
import type { EndpointRow } from './endpoints.js'
import { acceptMppSecrets, mppGate } from './paid-mpp.js'

/** MPP challenges outlive a change of the key that binds them (HKDF derivation, platform key rotation) until they expire. */
const chain = {
  chainId: 84532,
  tokens: { USDC: { symbol: 'USDC', address: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', decimals: 6, eip3009: true, permitDomain: { name: 'USDC', version: '2' } } },
} as unknown as EvmChain
const endpoint = (id: string) => ({ id, token: 'USDC', pay_to: '0x00000000000000000000000000000000000000aa', price: '0.01', name: null }) as unknown as EndpointRow
const request = (id: string) => ({ headers: { host: '127.0.0.1' }, url: `/paid/${id}`, method: 'GET' }) as unknown as IncomingMessage
const secret = () => randomBytes(32).toString('hex')

/** A credential for a challenge the gate of `issuer` made (its payload is not a payment: only the binding is under test). */
async function credentialFrom(id: string, issuer: string): Promise<string> {
  const header = await mppGate({ endpoint: endpoint(id), chain, facilitatorUrl: 'http://127.0.0.1:9/', secret: issuer })!.challenge(request(id))
  return Credential.serialize(Credential.from({ challenge: Challenge.deserialize(header!), payload: { type: 'authorization' } }))
}

describe('mppGate', () => {
  it('accepts a challenge issued under an older key it was told of, and refuses one of a key it was not', async () => {
    const id = randomUUID()
    const [old, current, stranger] = [secret(), secret(), secret()]
    const credential = await credentialFrom(id, old)
    acceptMppSecrets(current, [old])
    const accepted = await mppGate({ endpoint: endpoint(id), chain, facilitatorUrl: 'http://127.0.0.1:9/', secret: current })!.validate(credential)
    // Past the binding: refused for its payload, not for who issued it.
    expect(accepted.ok).toBe(false)
    expect(accepted.ok ? '' : accepted.reason).not.toMatch(/not issued by this server/)
    const refused = await mppGate({ endpoint: endpoint(id), chain, facilitatorUrl: 'http://127.0.0.1:9/', secret: stranger })!.validate(credential)
    expect(refused.ok ? '' : refused.reason).toMatch(/not issued by this server/)
  })
})
