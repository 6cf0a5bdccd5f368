import { type Address, type Hex, parseEventLogs, parseSignature, serializeSignature, zeroAddress } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Delivery, deliveryTypes, evmDeliveryDigest, evmParty } from '../xchain/statement.js'
import * as AttestationVerifierMofN from './artifacts/AttestationVerifierMofN.js'
import type { Call } from './testing/chain.js'
import { setupXchain, testKey, type XchainFixture } from './testing/xchain.js'

let f: XchainFixture
let delivery: Delivery
beforeAll(async () => {
  f = await setupXchain()
  const order = await f.makeOrder()
  delivery = {
    orderId: f.orderId(order),
    destChain: order.destChain,
    recipient: order.recipient,
    outputToken: order.outputToken,
    amount: order.outputAmount,
    solver: evmParty(f.tc.accounts.solver.address),
  }
})
afterAll(async () => f?.tc.stop())

const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n

const verifierCall = (functionName: string, args: readonly unknown[]): Call => ({
  address: f.verifier,
  abi: AttestationVerifierMofN.abi,
  functionName,
  args,
})
const read = (functionName: string, args: readonly unknown[] = []) =>
  f.tc.client.readContract({ ...verifierCall(functionName, args) } as never) as Promise<unknown>
/** The error `verifyDelivery` answers with, or undefined when it accepts. */
const verdict = (signatures: Hex[], d: Delivery = delivery) =>
  f.tc.revertReason(f.tc.accounts.other, verifierCall('verifyDelivery', [d, signatures]))

describe('AttestationVerifierMofN', () => {
  it('publishes its ERC-5267 domain, owner, attestors and threshold, and the digest of statement.ts', async () => {
    const [, name, version, chainId, verifyingContract] = (await read('eip712Domain')) as [
      Hex,
      string,
      string,
      bigint,
      Address,
    ]
    expect({ name, version, chainId: Number(chainId), verifyingContract }).toEqual({
      name: 'ParxAttestationVerifier',
      version: '1',
      chainId: f.chainId,
      verifyingContract: f.verifier,
    })
    expect(await read('owner')).toBe(f.tc.accounts.deployer.address)
    expect(await read('attestors')).toEqual(f.attestors.map((a) => a.address))
    expect(await read('threshold')).toBe(2n)
    expect(await read('hashDelivery', [delivery])).toBe(evmDeliveryDigest(delivery, f.chainId, f.verifier))
  })

  it('accepts any two distinct attestors, and all three', async () => {
    const [a, b, c] = f.attestors as [PrivateKeyAccount, PrivateKeyAccount, PrivateKeyAccount]
    for (const set of [
      [a, b],
      [b, c],
      [c, a],
      [a, b, c],
    ])
      expect(await verdict(await f.attest(set, delivery))).toBeUndefined()
  })

  it('rejects each malformed bundle with its own error', async () => {
    const [a, b, c] = f.attestors as [PrivateKeyAccount, PrivateKeyAccount, PrivateKeyAccount]
    const [sa, sb] = (await f.attest([a, b], delivery)) as [Hex, Hex]
    const { r, s, yParity } = parseSignature(sb)
    // The same signature in its other valid form (s -> n - s): ecrecover takes it, OZ refuses it.
    const malleated = serializeSignature({
      r,
      s: `0x${(SECP256K1_N - BigInt(s)).toString(16).padStart(64, '0')}`,
      yParity: 1 - yParity,
    })
    expect(await verdict([])).toBe('NotEnoughSignatures')
    expect(await verdict([sa])).toBe('NotEnoughSignatures')
    expect(await verdict([sa, sa])).toBe('DuplicateSigner')
    expect(await verdict([sa, ...(await f.attest([f.tc.accounts.other], delivery))])).toBe('UnknownSigner')
    expect(await verdict([sa, sb, ...(await f.attest([testKey('stranger')], delivery))])).toBe('UnknownSigner')
    expect(await verdict([sa, sb, sa])).toBe('DuplicateSigner')
    expect(await verdict([sa, sb.slice(0, 130) as Hex])).toBe('MalformedSignature')
    expect(await verdict([sa, `${sb}00`])).toBe('MalformedSignature')
    expect(await verdict([sa, malleated])).toBe('MalformedSignature')
    expect(await verdict([sa, `0x${'00'.repeat(65)}`])).toBe('MalformedSignature')
    // Signed for the verifier of another chain: a valid signature of someone unknown here.
    const elsewhere = await c.signTypedData({
      domain: { name: 'ParxAttestationVerifier', version: '1', chainId: f.chainId + 1, verifyingContract: f.verifier },
      types: deliveryTypes,
      primaryType: 'Delivery',
      message: delivery,
    })
    expect(await verdict([sa, elsewhere])).toBe('UnknownSigner')
  })

  it('lets only the owner change the attestor set', async () => {
    const { other, solver } = f.tc.accounts
    const stranger = testKey('would-be attestor')
    await f.tc.expectRevert(
      other,
      verifierCall('setAttestors', [[other.address, stranger.address], 1n]),
      'OwnableUnauthorizedAccount',
    )
    await f.tc.expectRevert(solver, verifierCall('setAttestors', [[solver.address], 1n]), 'OwnableUnauthorizedAccount')
    expect(await read('attestors')).toEqual(f.attestors.map((a) => a.address))
    expect(await read('threshold')).toBe(2n)
    expect(await read('isAttestor', [other.address])).toBe(false)
  })

  it('rotates an attestor out: its signatures stop counting at once, the new one counts', async () => {
    const { deployer } = f.tc.accounts
    const [a, b, c] = f.attestors as [PrivateKeyAccount, PrivateKeyAccount, PrivateKeyAccount]
    const fresh = testKey('rotated-in attestor')
    const [sa, sb] = (await f.attest([a, b], delivery)) as [Hex, Hex]
    const receipt = await f.tc.send(deployer, verifierCall('setAttestors', [[a.address, fresh.address, c.address], 2n]))
    const [ev] = parseEventLogs({ abi: AttestationVerifierMofN.abi, logs: receipt.logs, eventName: 'AttestorsSet' })
    expect(ev?.args).toEqual({ attestors: [a.address, fresh.address, c.address], threshold: 2n })
    expect(await verdict([sa, sb])).toBe('UnknownSigner')
    expect(await verdict([sa, ...(await f.attest([fresh], delivery))])).toBeUndefined()
    expect(await read('isAttestor', [b.address])).toBe(false)
    await f.tc.send(deployer, verifierCall('setAttestors', [f.attestors.map((x) => x.address), 2n]))
    expect(await verdict([sa, sb])).toBeUndefined()
  })

  it('refuses attestor sets that cannot work', async () => {
    const { deployer } = f.tc.accounts
    const addrs = f.attestors.map((a) => a.address)
    await f.tc.expectRevert(deployer, verifierCall('setAttestors', [addrs, 0n]), 'InvalidThreshold')
    await f.tc.expectRevert(deployer, verifierCall('setAttestors', [addrs, 4n]), 'InvalidThreshold')
    await f.tc.expectRevert(deployer, verifierCall('setAttestors', [[], 0n]), 'InvalidThreshold')
    await f.tc.expectRevert(
      deployer,
      verifierCall('setAttestors', [[addrs[0], addrs[1], addrs[0]], 2n]),
      'InvalidAttestor',
    )
    await f.tc.expectRevert(deployer, verifierCall('setAttestors', [[addrs[0], zeroAddress], 2n]), 'InvalidAttestor')
    const many = Array.from({ length: 33 }, (_, i) => testKey(`attestor ${i + 10}`).address)
    await f.tc.expectRevert(deployer, verifierCall('setAttestors', [many, 2n]), 'TooManyAttestors')
    expect(await read('attestors')).toEqual(addrs)
    expect(await read('threshold')).toBe(2n)
  })
})
