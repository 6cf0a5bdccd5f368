import { type Hex, parseUnits } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TOKEN_A } from '../../src/networks/registry.js'
import { erc2612Group } from '../../src/sdk/x402/evm/calls.js'
import {
  decodeExecute,
  delegationCode,
  EXECUTOR_ADDRESS,
  encodeExecute,
  failedGroups,
} from '../../src/sdk/x402/evm/executor.js'
import { ensureExecutor } from '../../src/sdk/x402/evm/executor-setup.js'
import * as X402BatchExecutor from './artifacts/X402BatchExecutor.js'
import { startTestChain, type TestChain } from './testing/chain.js'
import { signPermit } from './testing/sign.js'
import { balanceOf, type DeployedToken, deployToken, mint } from './testing/tokens.js'

let tc: TestChain
let pusd: DeployedToken

beforeAll(async () => {
  tc = await startTestChain()
  pusd = await deployToken(tc, TOKEN_A)
  await mint(tc, pusd, tc.accounts.user.address, parseUnits('100', 18))
})
afterAll(async () => tc?.stop())

/** The facilitator key here is the test chain's solver account: funded, and otherwise unused. */
const facilitator = () => tc.accounts.solver

async function permitGroup(value: bigint, o: { badSignature?: boolean } = {}) {
  const owner = tc.accounts.user
  const nonce = await tc.client.readContract({
    address: pusd.address,
    abi: pusd.abi,
    functionName: 'nonces',
    args: [owner.address],
  })
  const deadline = (await tc.latestTimestamp()) + 600n
  const signer = o.badSignature ? tc.accounts.other : owner
  const sig = await signPermit(signer, pusd.domain, { spender: facilitator().address, value, nonce, deadline })
  return {
    nonce,
    group: erc2612Group({
      token: pusd.address,
      owner: owner.address,
      spender: facilitator().address,
      value,
      deadline,
      signature: sig.signature,
      to: tc.accounts.deployer.address,
      amount: value,
    }),
  }
}

describe('X402BatchExecutor behind an EIP-7702 delegation', () => {
  it('is deployed at its CREATE2 address and takes the delegation once', async () => {
    await ensureExecutor(tc.client, facilitator(), tc.chain.id)
    expect(await tc.client.getCode({ address: facilitator().address })).toBe(delegationCode(EXECUTOR_ADDRESS))
    const nonce = await tc.client.getTransactionCount({ address: facilitator().address })
    await ensureExecutor(tc.client, facilitator(), tc.chain.id)
    expect(await tc.client.getTransactionCount({ address: facilitator().address })).toBe(nonce)
  })

  it('runs permit and transferFrom as the delegating key, each payment group standing alone', async () => {
    const good = await permitGroup(parseUnits('2', 18))
    const bad = (await permitGroup(parseUnits('1', 18), { badSignature: true })).group
    const before = await balanceOf(tc, pusd, tc.accounts.deployer.address)
    const receipt = await tc.send(facilitator(), {
      address: facilitator().address,
      abi: X402BatchExecutor.abi,
      functionName: 'execute',
      args: [[bad, good.group]],
    })
    const failed = failedGroups(receipt.logs, facilitator().address)
    expect([...failed.keys()]).toEqual([0])
    expect(await balanceOf(tc, pusd, tc.accounts.deployer.address)).toBe(before + parseUnits('2', 18))
    expect(
      await tc.client.readContract({
        address: pusd.address,
        abi: pusd.abi,
        functionName: 'nonces',
        args: [tc.accounts.user.address],
      }),
    ).toBe(good.nonce + 1n)
  })

  it('answers eth_call simulations with every group’s outcome', async () => {
    const g = (await permitGroup(parseUnits('1', 18))).group
    const ret = (await tc.client.request({
      method: 'eth_call',
      params: [{ from: facilitator().address, to: facilitator().address, data: encodeExecute([g, [g[1]!]]) }, 'latest'],
    })) as Hex
    const out = decodeExecute(ret)
    // The second group is a transferFrom without a permit: no allowance left after the first group ran in the same call.
    expect(out.ok).toEqual([true, false])
  })

  it('refuses anyone but the delegating key itself', async () => {
    const g = (await permitGroup(parseUnits('1', 18))).group
    await tc.expectRevert(
      tc.accounts.other,
      { address: facilitator().address, abi: X402BatchExecutor.abi, functionName: 'execute', args: [[g]] },
      'OnlySelf',
    )
    await tc.expectRevert(
      tc.accounts.other,
      { address: facilitator().address, abi: X402BatchExecutor.abi, functionName: 'executeGroup', args: [g] },
      'OnlySelf',
    )
  })
})
