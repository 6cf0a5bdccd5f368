import { type Address, getAddress, keccak256, toHex } from 'viem'
import { toPackedUserOperation } from 'viem/account-abstraction'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as VerifyingPaymaster from '../../../contracts/evm/artifacts/VerifyingPaymaster.js'
import { startTestChain, type TestChain } from '../../../contracts/evm/testing/chain.js'
import { ENTRY_POINT_08 } from './canonical.js'
import { paymasterHash, type SponsoredFields } from './paymaster-hash.js'

let tc: TestChain
let paymaster: Address
beforeAll(async () => {
  tc = await startTestChain()
  // getHash reads no EntryPoint state, so any address stands in for it here.
  paymaster = await tc.deploy(VerifyingPaymaster.abi, VerifyingPaymaster.bytecode, [
    ENTRY_POINT_08,
    tc.accounts.solver.address,
    tc.accounts.deployer.address,
  ])
}, 30_000)
afterAll(async () => tc?.stop())

const op = (over: Partial<SponsoredFields> = {}): SponsoredFields => ({
  sender: getAddress(`0x${keccak256(toHex('sender')).slice(26)}`),
  nonce: 0x1a20a0529b80000000000000000n,
  callData: keccak256(toHex('call')),
  callGasLimit: 38_295n,
  verificationGasLimit: 49_783n,
  preVerificationGas: 78_692n,
  maxFeePerGas: 1_234_567_890n,
  maxPriorityFeePerGas: 1_000_000_000n,
  paymasterVerificationGasLimit: 60_000n,
  paymasterPostOpGasLimit: 0n,
  ...over,
})

async function onChain(o: SponsoredFields, validUntil: number, validAfter: number) {
  const packed = toPackedUserOperation({ ...o, signature: '0x', paymaster, paymasterData: '0x' } as never)
  return tc.client.readContract({
    address: paymaster,
    abi: VerifyingPaymaster.abi,
    functionName: 'getHash',
    args: [packed, validUntil, validAfter],
  })
}

describe('paymasterHash', () => {
  it('equals VerifyingPaymaster.getHash for the same operation', async () => {
    for (const [o, until, after] of [
      [op(), 1_900_000_000, 0],
      [op({ factory: '0x7702000000000000000000000000000000000000', factoryData: '0x1234' }), 2 ** 40, 17],
      [op({ paymasterPostOpGasLimit: 5n, callData: '0x' }), 1, 0],
    ] as const) {
      expect(paymasterHash(o, { chainId: tc.chain.id, paymaster, validUntil: until, validAfter: after })).toBe(
        await onChain(o, until, after),
      )
    }
  })

  it('changes with every signed field, so a signature covers exactly one operation', async () => {
    const x = { chainId: tc.chain.id, paymaster, validUntil: 1_900_000_000, validAfter: 0 }
    const base = paymasterHash(op(), x)
    for (const over of [
      { nonce: 1n },
      { callData: '0x01' as const },
      { maxFeePerGas: 1n },
      { paymasterVerificationGasLimit: 1n },
      { preVerificationGas: 1n },
    ]) {
      expect(
        paymasterHash(op(over), x),
        JSON.stringify(over, (_, v) => (typeof v === 'bigint' ? String(v) : v)),
      ).not.toBe(base)
    }
    expect(paymasterHash(op(), { ...x, chainId: 1 })).not.toBe(base)
    expect(paymasterHash(op(), { ...x, validUntil: x.validUntil + 1 })).not.toBe(base)
  })
})
