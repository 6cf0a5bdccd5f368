import { type Address, createWalletClient, http } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { useAnvilChain } from '../../test/helpers/anvil-chain.js'
import { confirmTransaction } from './confirm.js'

const anvil = useAnvilChain()
/** PUSH1 0 PUSH1 0 REVERT: every call reverts, with no data. */
const REVERTS = '0x60006000fd'

describe('confirmTransaction of a failed transaction', () => {
  it('gives the revert reason, and says so when the node no longer holds the block to replay it at', async () => {
    const target: Address = '0x00000000000000000000000000000000000c0de1'
    await anvil.rpc('anvil_setCode', [target, REVERTS])
    const account = privateKeyToAccount(await anvil.fundedKey())
    const wallet = createWalletClient({
      account,
      chain: anvil.chain.client.chain!,
      transport: http(anvil.chain.rpcUrl),
    })
    const hash = await wallet.sendTransaction({ to: target, data: '0x01', gas: 50_000n })
    await anvil.chain.client.waitForTransactionReceipt({ hash, pollingInterval: 50 })

    const recent = await confirmTransaction(anvil.chain, hash)
    expect(recent).toMatchObject({ status: 'failed', success: false })
    expect(recent.status === 'failed' && recent.reason).toMatch(/revert/i)
    expect(recent.status === 'failed' && recent.reason).not.toMatch(/no reason could be recovered/)

    // The embedded chains keep the state of the last 500 blocks only.
    await anvil.rpc('anvil_mine', ['0x208'])
    const old = await confirmTransaction(anvil.chain, hash)
    expect(old).toMatchObject({ status: 'failed', success: false })
    expect(old.status === 'failed' && old.reason).toMatch(/^reverted \(no reason could be recovered: .*block/i)
  })
})
