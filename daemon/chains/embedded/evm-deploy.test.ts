import { createPublicClient, custom, keccak256, type PublicClient } from 'viem'
import { describe, expect, it } from 'vitest'
import {
  AUTH_CAPTURE_V1_0,
  AUTH_CAPTURE_V1_1,
  authCaptureContracts,
} from '../../../src/sdk/x402/evm/auth-capture/contracts.js'
import { batchSettlementContracts } from '../../../src/sdk/x402/evm/batch-settlement/contracts.js'
import { PERMIT2_ADDRESS } from '../../../src/sdk/x402/evm/permit2.js'
import { useAnvilChain } from '../../../test/helpers/anvil-chain.js'
import { codeHashes, EMPTY_CODE_HASH, NO_ACCOUNT_HASH } from './code-hashes.js'
import { HISTORY_STORAGE_ADDRESS, installCanonical, MULTICALL3 } from './evm-deploy.js'

const anvil = useAnvilChain()

/** The slot EIP-2935 writes the parent's hash to when block `n` is mined. */
const historySlotOf = async (n: bigint) =>
  anvil.rpc<string>('eth_getStorageAt', [HISTORY_STORAGE_ADDRESS, `0x${((n - 1n) % 8191n).toString(16)}`, 'latest'])
const mine = async () => {
  await anvil.rpc('evm_mine')
  return BigInt(await anvil.rpc<string>('eth_blockNumber'))
}

describe('installCanonical', () => {
  it('places the canonical contracts and stops the chain writing block-hash history', async () => {
    // As anvil starts (Prague): every block stores its parent's hash in the history contract.
    expect(BigInt(await historySlotOf(await mine()))).not.toBe(0n)

    await installCanonical(anvil.chain.client)
    for (const address of [MULTICALL3, PERMIT2_ADDRESS, ...Object.values(batchSettlementContracts)])
      expect(await anvil.chain.client.getCode({ address })).toMatch(/^0x[0-9a-f]{100,}/)
    // x402 auth-capture, both sets, with the token store implementations their escrows clone.
    for (const address of [
      ...Object.values(authCaptureContracts),
      AUTH_CAPTURE_V1_1.tokenStore,
      AUTH_CAPTURE_V1_0.tokenStore,
    ]) {
      expect(await anvil.chain.client.getCode({ address }), address).toMatch(/^0x[0-9a-f]{100,}/)
    }
    expect(await anvil.chain.client.getCode({ address: HISTORY_STORAGE_ADDRESS })).toBeUndefined()
    for (let i = 0; i < 3; i++) expect(BigInt(await historySlotOf(await mine()))).toBe(0n)
  })
})

/** The chain's client, with every method it is asked recorded. */
const recorded = () => {
  const methods: string[] = []
  const client = createPublicClient({
    transport: custom({
      request: (a: { method: string; params?: unknown }) => (
        methods.push(a.method), anvil.chain.client.request(a as never)
      ),
    }),
  }) as PublicClient
  return { client, methods }
}

describe('a restart finds the canonical contracts in place', () => {
  it('rewrites only the code that differs, and the history contract only while it has code', async () => {
    await installCanonical(anvil.chain.client)
    const again = recorded()
    await installCanonical(again.client)
    expect(again.methods.filter((m) => m === 'anvil_setCode')).toEqual([])

    await anvil.rpc('anvil_setCode', [PERMIT2_ADDRESS, '0x6001'])
    await anvil.rpc('anvil_setCode', [HISTORY_STORAGE_ADDRESS, '0x6002'])
    const mended = recorded()
    await installCanonical(mended.client)
    expect(mended.methods.filter((m) => m === 'anvil_setCode')).toHaveLength(2)
    expect(await anvil.chain.client.getCode({ address: PERMIT2_ADDRESS })).toMatch(/^0x[0-9a-f]{100,}/)
    expect(await anvil.chain.client.getCode({ address: HISTORY_STORAGE_ADDRESS })).toBeUndefined()
  })

  it('codeHashes reads each code hash in one call: a contract, an account without code, no account', async () => {
    const withBalance = '0x00000000000000000000000000000000000b0b01'
    await anvil.rpc('anvil_setBalance', [withBalance, '0x1'])
    const asked = recorded()
    const hashes = await codeHashes(asked.client, [
      MULTICALL3,
      withBalance,
      '0x00000000000000000000000000000000000b0b02',
    ])
    expect(asked.methods).toEqual(['eth_call'])
    expect(hashes).toEqual([
      keccak256((await anvil.chain.client.getCode({ address: MULTICALL3 }))!),
      EMPTY_CODE_HASH,
      NO_ACCOUNT_HASH,
    ])
  })

  it('codeHashes reads a first hash that starts with 0xEF (init code may not return code starting with that byte, EIP-3541)', async () => {
    // Code whose hash starts with 0xef: 1 in 256, found by counting.
    let code: `0x${string}` = '0x00'
    for (let i = 0; !keccak256(code).startsWith('0xef'); i++)
      code = `0x60${(i & 0xff).toString(16).padStart(2, '0')}60${(i >> 8).toString(16).padStart(2, '0')}00`
    const address = '0x00000000000000000000000000000000000b0b03'
    await anvil.rpc('anvil_setCode', [address, code])
    expect(await codeHashes(anvil.chain.client, [address, MULTICALL3])).toEqual([
      keccak256(code),
      keccak256((await anvil.chain.client.getCode({ address: MULTICALL3 }))!),
    ])
  })
})
