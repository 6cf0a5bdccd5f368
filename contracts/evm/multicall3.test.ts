import { type AbiFunction, encodeFunctionData, multicall3Abi, toFunctionSelector } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TOKEN_A } from '../../src/networks/registry.js'
import * as Multicall3 from './artifacts/Multicall3.js'
import * as PermitToken from './artifacts/PermitToken.js'
import * as UsdcToken from './artifacts/UsdcToken.js'
import { MULTICALL3, startTestChain, type TestChain } from './testing/chain.js'
import { type DeployedToken, deployToken, mint } from './testing/tokens.js'

/** The canonical Multicall3 surface (mds1/multicall); clients hard-code these selectors. */
const CANONICAL = [
  'aggregate((address,bytes)[])',
  'aggregate3((address,bool,bytes)[])',
  'aggregate3Value((address,bool,uint256,bytes)[])',
  'blockAndAggregate((address,bytes)[])',
  'getBasefee()',
  'getBlockHash(uint256)',
  'getBlockNumber()',
  'getChainId()',
  'getCurrentBlockCoinbase()',
  'getCurrentBlockDifficulty()',
  'getCurrentBlockGasLimit()',
  'getCurrentBlockTimestamp()',
  'getEthBalance(address)',
  'getLastBlockHash()',
  'tryAggregate(bool,(address,bytes)[])',
  'tryBlockAndAggregate(bool,(address,bytes)[])',
]

let tc: TestChain
let pusd: DeployedToken
beforeAll(async () => {
  tc = await startTestChain()
  await tc.testClient.setCode({ address: MULTICALL3, bytecode: Multicall3.deployedBytecode })
  pusd = await deployToken(tc, TOKEN_A)
  await mint(tc, pusd, tc.accounts.user.address, 42n)
})
afterAll(async () => tc?.stop())

const read = { address: MULTICALL3, abi: Multicall3.abi } as const

describe('Multicall3', () => {
  it("has exactly the canonical selectors and matches viem's ABI", () => {
    const ours = Multicall3.abi.filter((e): e is AbiFunction & (typeof Multicall3.abi)[number] => e.type === 'function')
    expect(ours.map((e) => toFunctionSelector(e)).sort()).toEqual(
      CANONICAL.map((s) => toFunctionSelector(`function ${s}`)).sort(),
    )
    for (const theirs of multicall3Abi) {
      const mine = ours.find((e) => e.name === theirs.name)
      expect(mine && toFunctionSelector(mine)).toBe(toFunctionSelector(theirs))
      expect(mine?.outputs.map((o) => o.type)).toEqual(theirs.outputs.map((o) => o.type))
    }
  })

  it('serves viem multicall (aggregate3) once installed with anvil_setCode, failures per call', async () => {
    const { user, other } = tc.accounts
    const token = { address: pusd.address, abi: PermitToken.abi } as const
    const results = await tc.client.multicall({
      contracts: [
        { ...token, functionName: 'balanceOf', args: [user.address] },
        { ...token, functionName: 'balanceOf', args: [other.address] },
        { ...token, functionName: 'name' },
        // PermitToken has no EIP-3009: this call reverts and must come back as a failure only.
        {
          address: pusd.address,
          abi: UsdcToken.abi,
          functionName: 'authorizationState',
          args: [user.address, `0x${'11'.repeat(32)}`],
        },
      ],
    })
    expect(results.map((r) => r.status)).toEqual(['success', 'success', 'success', 'failure'])
    expect(results.slice(0, 3).map((r) => r.result)).toEqual([42n, 0n, pusd.domain.name])
  })

  it('answers the block and account getters', async () => {
    const block = await tc.client.getBlock()
    const at = { blockNumber: block.number }
    expect(await tc.client.readContract({ ...read, functionName: 'getChainId', ...at })).toBe(BigInt(tc.chain.id))
    expect(await tc.client.readContract({ ...read, functionName: 'getBlockNumber', ...at })).toBe(block.number)
    expect(await tc.client.readContract({ ...read, functionName: 'getCurrentBlockTimestamp', ...at })).toBe(
      block.timestamp,
    )
    expect(await tc.client.readContract({ ...read, functionName: 'getBasefee', ...at })).toBe(block.baseFeePerGas)
    const eth = await tc.client.getBalance({ address: tc.accounts.user.address })
    expect(
      await tc.client.readContract({ ...read, functionName: 'getEthBalance', args: [tc.accounts.user.address] }),
    ).toBe(eth)
  })

  it('tryAggregate(false) reports failures as the x402 facilitator expects; aggregate reverts on one', async () => {
    const calls = [
      { target: pusd.address, callData: encodeFunctionData({ abi: PermitToken.abi, functionName: 'version' }) },
      {
        target: pusd.address,
        callData: encodeFunctionData({
          abi: UsdcToken.abi,
          functionName: 'authorizationState',
          args: [tc.accounts.user.address, `0x${'22'.repeat(32)}`],
        }),
      },
    ]
    // Payable in the canonical ABI, so viem reaches it through simulate (an eth_call), as the facilitator does.
    const { result: results } = await tc.client.simulateContract({
      ...read,
      functionName: 'tryAggregate',
      args: [false, calls],
    })
    expect(results.map((r) => r.success)).toEqual([true, false])
    expect(await tc.revertReason(tc.accounts.user, { ...read, functionName: 'aggregate', args: [calls] })).toBe(
      'Multicall3: call failed',
    )
  })

  it('aggregate3Value forwards ETH per call and refuses a msg.value that does not add up', async () => {
    const { user, other } = tc.accounts
    const calls = [{ target: other.address, allowFailure: false, value: 7n, callData: '0x' as const }]
    const before = await tc.client.getBalance({ address: other.address })
    const call = { ...read, functionName: 'aggregate3Value', args: [calls] } as const
    const hash = await tc.wallet(user).writeContract({ ...call, value: 7n })
    expect((await tc.client.waitForTransactionReceipt({ hash })).status).toBe('success')
    expect(await tc.client.getBalance({ address: other.address })).toBe(before + 7n)
    await expect(tc.client.simulateContract({ ...call, value: 8n, account: user })).rejects.toThrow(
      'Multicall3: value mismatch',
    )
  })
})
