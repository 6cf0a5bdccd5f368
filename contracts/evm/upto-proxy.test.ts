import { uptoPermit2WitnessTypes as refTypes, x402UptoPermit2ProxyABI, x402UptoPermit2ProxyAddress } from '@x402/evm'
import { type Abi, type Address, maxUint256, toFunctionSelector } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TOKEN_A } from '../../src/networks/registry.js'
import { PERMIT2_ADDRESS } from '../../src/sdk/x402/evm/permit2.js'
import { uptoPermit2WitnessTypes, uptoTypedData, X402_UPTO_PERMIT2_PROXY } from '../../src/sdk/x402/evm/upto.js'
import * as Permit2Lite from './artifacts/Permit2Lite.js'
import * as X402UptoPermit2ProxyLite from './artifacts/X402UptoPermit2ProxyLite.js'
import { startTestChain, type TestChain } from './testing/chain.js'
import { balanceOf, type DeployedToken, deployToken, mint } from './testing/tokens.js'

let tc: TestChain
let pusd: DeployedToken
beforeAll(async () => {
  tc = await startTestChain()
  await tc.testClient.setCode({ address: PERMIT2_ADDRESS, bytecode: Permit2Lite.deployedBytecode })
  await tc.testClient.setCode({ address: X402_UPTO_PERMIT2_PROXY, bytecode: X402UptoPermit2ProxyLite.deployedBytecode })
  pusd = await deployToken(tc, TOKEN_A)
  await mint(tc, pusd, tc.accounts.user.address, 1000n)
  await tc.send(tc.accounts.user, {
    address: pusd.address,
    abi: pusd.abi,
    functionName: 'approve',
    args: [PERMIT2_ADDRESS, maxUint256],
  })
})
afterAll(async () => tc?.stop())

const proxy = {
  address: X402_UPTO_PERMIT2_PROXY,
  abi: [...X402UptoPermit2ProxyLite.abi, ...Permit2Lite.abi.filter((e) => e.type === 'error')],
} as const

/** A transfer of at most `max` signed as @x402/evm's upto client signs it, settled for `amount`; the solver is the facilitator. */
async function signed(o: { max?: bigint; amount: bigint; nonce: bigint; to: Address; facilitator?: Address }) {
  const a = {
    token: pusd.address,
    amount: o.max ?? 100n,
    spender: X402_UPTO_PERMIT2_PROXY,
    nonce: o.nonce,
    deadline: (await tc.latestTimestamp()) + 600n,
    to: o.to,
    facilitator: o.facilitator ?? tc.accounts.solver.address,
    validAfter: 0n,
  }
  const signature = await tc.accounts.user.signTypedData(uptoTypedData(tc.chain.id, a))
  const args = [
    { permitted: { token: a.token, amount: a.amount }, nonce: a.nonce, deadline: a.deadline },
    o.amount,
    tc.accounts.user.address,
    { to: a.to, facilitator: a.facilitator, validAfter: a.validAfter },
    signature,
  ] as const
  return { ...proxy, functionName: 'settle', args }
}

describe('X402UptoPermit2ProxyLite placed with setCode', () => {
  it('sits at the reference upto proxy address, with its entry points, errors and witness type, and names Permit2', async () => {
    expect(X402_UPTO_PERMIT2_PROXY).toBe(x402UptoPermit2ProxyAddress)
    expect(uptoPermit2WitnessTypes).toEqual(refTypes)
    const selectors = (abi: Abi) =>
      abi
        .filter((e) => e.type === 'function' || e.type === 'error')
        .map((e) => toFunctionSelector(e as never))
        .sort()
    expect(selectors(X402UptoPermit2ProxyLite.abi as Abi)).toEqual(selectors(x402UptoPermit2ProxyABI as Abi))
    expect(await tc.client.readContract({ ...proxy, functionName: 'PERMIT2' })).toBe(PERMIT2_ADDRESS)
  })

  it('moves the amount used, at most the signed maximum, once', async () => {
    const to = tc.accounts.other.address
    const before = await balanceOf(tc, pusd, to)
    const call = await signed({ amount: 37n, nonce: 1n, to })
    await tc.send(tc.accounts.solver, call)
    expect((await balanceOf(tc, pusd, to)) - before).toBe(37n)
    // The nonce is spent even though less than the maximum moved.
    await tc.expectRevert(tc.accounts.solver, call, 'InvalidNonce')
  })

  it('refuses more than the maximum, and anyone but the facilitator the witness names', async () => {
    const to = tc.accounts.other.address
    await tc.expectRevert(tc.accounts.solver, await signed({ amount: 101n, nonce: 2n, to }), 'AmountExceedsPermitted')
    await tc.expectRevert(tc.accounts.user, await signed({ amount: 10n, nonce: 3n, to }), 'UnauthorizedFacilitator')
    // A witness naming another facilitator does not match the signature the settler claims.
    const good = await signed({ amount: 10n, nonce: 4n, to })
    const swapped = {
      ...good,
      args: [
        good.args[0],
        good.args[1],
        good.args[2],
        { ...good.args[3], facilitator: tc.accounts.user.address },
        good.args[4],
      ] as const,
    }
    await tc.expectRevert(tc.accounts.user, swapped, 'InvalidSigner')
  })
})
