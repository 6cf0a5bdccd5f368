import { describe, expect, it } from 'vitest'
import { useAnvilChain } from '../../../test/helpers/anvil-chain.js'
import { PERMIT2_ADDRESS } from '../../../src/sdk/x402/evm/permit2.js'
import { batchSettlementContracts } from '../../../src/sdk/x402/evm/batch-settlement/contracts.js'
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
    for (const address of [MULTICALL3, PERMIT2_ADDRESS, ...Object.values(batchSettlementContracts)]) expect(await anvil.chain.client.getCode({ address })).toMatch(/^0x[0-9a-f]{100,}/)
    expect(await anvil.chain.client.getCode({ address: HISTORY_STORAGE_ADDRESS })).toBeUndefined()
    for (let i = 0; i < 3; i++) expect(BigInt(await historySlotOf(await mine()))).toBe(0n)
  })
})
