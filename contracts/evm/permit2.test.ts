import {
  PERMIT2_ADDRESS as REF_PERMIT2,
  permit2WitnessTypes as refTypes,
  x402ExactPermit2ProxyAddress,
} from '@x402/evm'
import { type Address, domainSeparator, encodeAbiParameters, hashStruct, keccak256, maxUint256, toHex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TOKEN_A } from '../../src/networks/registry.js'
import {
  PERMIT2_ADDRESS,
  permit2TypedData,
  permit2WitnessTypes,
  X402_EXACT_PERMIT2_PROXY,
} from '../../src/sdk/x402/evm/permit2.js'
import * as Permit2Lite from './artifacts/Permit2Lite.js'
import * as X402Permit2ProxyLite from './artifacts/X402Permit2ProxyLite.js'
import { startTestChain, type TestChain } from './testing/chain.js'
import { balanceOf, type DeployedToken, deployToken, mint } from './testing/tokens.js'

const STUB = 'PermitWitnessTransferFrom(TokenPermissions permitted,address spender,uint256 nonce,uint256 deadline,'
const WITNESS_TYPE_STRING =
  'Witness witness)TokenPermissions(address token,uint256 amount)Witness(address to,uint256 validAfter)'

describe('Permit2 witness typehash', () => {
  it('is what viem hashes for the reference client’s types', () => {
    expect(permit2WitnessTypes).toEqual(refTypes)
    expect([PERMIT2_ADDRESS, X402_EXACT_PERMIT2_PROXY]).toEqual([REF_PERMIT2, x402ExactPermit2ProxyAddress])
    const token: Address = '0x00000000000000000000000000000000000000aa'
    const to: Address = '0x00000000000000000000000000000000000000bb'
    const message = {
      permitted: { token, amount: 5n },
      spender: X402_EXACT_PERMIT2_PROXY,
      nonce: 7n,
      deadline: 9n,
      witness: { to, validAfter: 3n },
    }
    // Permit2's construction: the stub plus the proxy's tail, fields abi-encoded with hashed structs.
    const typeHash = keccak256(toHex(STUB + WITNESS_TYPE_STRING))
    const permissions = keccak256(
      encodeAbiParameters(
        [{ type: 'bytes32' }, { type: 'address' }, { type: 'uint256' }],
        [keccak256(toHex('TokenPermissions(address token,uint256 amount)')), token, 5n],
      ),
    )
    const witness = keccak256(
      encodeAbiParameters(
        [{ type: 'bytes32' }, { type: 'address' }, { type: 'uint256' }],
        [keccak256(toHex('Witness(address to,uint256 validAfter)')), to, 3n],
      ),
    )
    const ours = keccak256(
      encodeAbiParameters(
        [
          { type: 'bytes32' },
          { type: 'bytes32' },
          { type: 'address' },
          { type: 'uint256' },
          { type: 'uint256' },
          { type: 'bytes32' },
        ],
        [typeHash, permissions, X402_EXACT_PERMIT2_PROXY, 7n, 9n, witness],
      ),
    )
    expect(ours).toBe(hashStruct({ data: message, primaryType: 'PermitWitnessTransferFrom', types: refTypes }))
  })
})

let tc: TestChain
let pusd: DeployedToken
beforeAll(async () => {
  tc = await startTestChain()
  await tc.testClient.setCode({ address: PERMIT2_ADDRESS, bytecode: Permit2Lite.deployedBytecode })
  await tc.testClient.setCode({ address: X402_EXACT_PERMIT2_PROXY, bytecode: X402Permit2ProxyLite.deployedBytecode })
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

// Permit2's errors surface through the proxy, so the caller's ABI names them too.
const proxy = {
  address: X402_EXACT_PERMIT2_PROXY,
  abi: [...X402Permit2ProxyLite.abi, ...Permit2Lite.abi.filter((e) => e.type === 'error')],
} as const

async function signed(o: { amount?: bigint; nonce: bigint; to: Address; validAfter?: bigint; deadline?: bigint }) {
  const a = {
    token: pusd.address,
    amount: o.amount ?? 100n,
    spender: X402_EXACT_PERMIT2_PROXY,
    nonce: o.nonce,
    deadline: o.deadline ?? (await tc.latestTimestamp()) + 600n,
    to: o.to,
    validAfter: o.validAfter ?? 0n,
  }
  const signature = await tc.accounts.user.signTypedData(permit2TypedData(tc.chain.id, a))
  const args = [
    { permitted: { token: a.token, amount: a.amount }, nonce: a.nonce, deadline: a.deadline },
    tc.accounts.user.address,
    { to: a.to, validAfter: a.validAfter },
    signature,
  ] as const
  return { ...proxy, functionName: 'settle', args }
}

describe('Permit2Lite and X402Permit2ProxyLite placed with setCode', () => {
  it('computes the domain separator from the address it runs at', async () => {
    const sep = await tc.client.readContract({
      address: PERMIT2_ADDRESS,
      abi: Permit2Lite.abi,
      functionName: 'DOMAIN_SEPARATOR',
    })
    expect(sep).toBe(
      domainSeparator({ domain: { name: 'Permit2', chainId: tc.chain.id, verifyingContract: PERMIT2_ADDRESS } }),
    )
    expect(await tc.client.readContract({ ...proxy, functionName: 'PERMIT2' })).toBe(PERMIT2_ADDRESS)
    expect(await tc.client.readContract({ ...proxy, functionName: 'WITNESS_TYPE_STRING' })).toBe(WITNESS_TYPE_STRING)
  })

  it('settles a reference-signed transfer once, to the witness, and refuses its replay', async () => {
    const to = tc.accounts.other.address
    const call = await signed({ nonce: 1n << 200n, to })
    const before = await balanceOf(tc, pusd, to)
    await tc.send(tc.accounts.solver, call)
    expect((await balanceOf(tc, pusd, to)) - before).toBe(100n)
    await tc.expectRevert(tc.accounts.solver, call, 'InvalidNonce')
    const bitmap = await tc.client.readContract({
      address: PERMIT2_ADDRESS,
      abi: Permit2Lite.abi,
      functionName: 'nonceBitmap',
      args: [tc.accounts.user.address, 1n << 192n],
    })
    expect(bitmap).toBe(1n)
  })

  it('refuses a redirected witness, an early payment, an expired permit and an invalidated nonce', async () => {
    const to = tc.accounts.other.address
    const good = await signed({ nonce: 5n, to })
    const redirected = {
      ...good,
      args: [good.args[0], good.args[1], { to: tc.accounts.solver.address, validAfter: 0n }, good.args[3]] as const,
    }
    await tc.expectRevert(tc.accounts.solver, redirected, 'InvalidSigner')
    await tc.expectRevert(
      tc.accounts.solver,
      await signed({ nonce: 6n, to, validAfter: (await tc.latestTimestamp()) + 3600n }),
      'PaymentTooEarly',
    )
    await tc.expectRevert(tc.accounts.solver, await signed({ nonce: 7n, to, deadline: 1n }), 'SignatureExpired')
    await tc.send(tc.accounts.user, {
      address: PERMIT2_ADDRESS,
      abi: Permit2Lite.abi,
      functionName: 'invalidateUnorderedNonces',
      args: [0n, 1n << 5n],
    })
    await tc.expectRevert(tc.accounts.solver, good, 'InvalidNonce')
  })
})
