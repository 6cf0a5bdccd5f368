import { ExactEvmScheme, toClientEvmSigner } from '@x402/evm'
import { type Hex, keccak256, parseEventLogs, parseSignature, toHex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { USDC } from '../../src/networks/registry.js'
import * as UsdcToken from './artifacts/UsdcToken.js'
import { startTestChain, type TestChain } from './testing/chain.js'
import { type Authorization, signAuthorization, signCancel } from './testing/sign.js'
import { balanceOf, type DeployedToken, deployToken, mint } from './testing/tokens.js'

let tc: TestChain
let usdc: DeployedToken
let counter = 0
/** EIP-3009 nonces are random 32-byte values; distinct labels keep the tests independent. */
const freshNonce = (): Hex => keccak256(toHex(`eip3009 test nonce ${counter++}`))

beforeAll(async () => {
  tc = await startTestChain()
  usdc = await deployToken(tc, USDC)
  await mint(tc, usdc, tc.accounts.user.address, 1_000_000_000n)
})
afterAll(async () => tc?.stop())

async function authorization(overrides: Partial<Authorization> = {}): Promise<Authorization> {
  const now = await tc.latestTimestamp()
  return {
    from: tc.accounts.user.address,
    to: tc.accounts.other.address,
    value: 1_500_000n,
    validAfter: now - 1n,
    validBefore: now + 3600n,
    nonce: freshNonce(),
    ...overrides,
  }
}

function transferCall(a: Authorization, sig: { v: number; r: Hex; s: Hex }) {
  const args = [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, sig.v, sig.r, sig.s]
  return { address: usdc.address, abi: UsdcToken.abi, functionName: 'transferWithAuthorization', args }
}

const used = (a: Authorization) =>
  tc.client.readContract({
    address: usdc.address,
    abi: UsdcToken.abi,
    functionName: 'authorizationState',
    args: [a.from, a.nonce],
  })

describe('UsdcToken EIP-3009', () => {
  it('transferWithAuthorization moves the funds once and rejects reuse of the nonce', async () => {
    const { user, other, solver } = tc.accounts
    const a = await authorization()
    const sig = await signAuthorization(user, usdc.domain, 'TransferWithAuthorization', a)
    const before = await balanceOf(tc, usdc, user.address)
    // Anyone may relay it (here a third account), which is what lets a facilitator pay the gas.
    const receipt = await tc.send(solver, transferCall(a, sig))
    expect(await balanceOf(tc, usdc, user.address)).toBe(before - a.value)
    expect(await balanceOf(tc, usdc, other.address)).toBe(a.value)
    expect(await used(a)).toBe(true)
    const [ev] = parseEventLogs({ abi: UsdcToken.abi, logs: receipt.logs, eventName: 'AuthorizationUsed' })
    expect(ev?.args).toEqual({ authorizer: user.address, nonce: a.nonce })

    await tc.expectRevert(solver, transferCall(a, sig), 'ERC3009UsedAuthorization')
    expect(await balanceOf(tc, usdc, other.address)).toBe(a.value)
  })

  it('refuses before validAfter and from validBefore on', async () => {
    const { user, solver } = tc.accounts
    const now = await tc.latestTimestamp()
    const early = await authorization({ validAfter: now + 600n, validBefore: now + 3600n })
    const earlySig = await signAuthorization(user, usdc.domain, 'TransferWithAuthorization', early)
    const balance = await balanceOf(tc, usdc, user.address)
    await tc.expectRevert(solver, transferCall(early, earlySig), 'ERC3009InvalidAuthorizationTime')
    // validBefore is exclusive: an authorization whose validBefore is the current block is dead.
    const late = await authorization({ validBefore: now })
    const lateSig = await signAuthorization(user, usdc.domain, 'TransferWithAuthorization', late)
    await tc.expectRevert(solver, transferCall(late, lateSig), 'ERC3009InvalidAuthorizationTime')
    expect(await balanceOf(tc, usdc, user.address)).toBe(balance)
    expect([await used(early), await used(late)]).toEqual([false, false])

    await tc.testClient.setNextBlockTimestamp({ timestamp: early.validAfter + 1n })
    await tc.send(solver, transferCall(early, earlySig))
    expect(await balanceOf(tc, usdc, user.address)).toBe(balance - early.value)
  })

  it('rejects a signature by someone other than `from`', async () => {
    const { other, solver } = tc.accounts
    const a = await authorization()
    const sig = await signAuthorization(other, usdc.domain, 'TransferWithAuthorization', a)
    await tc.expectRevert(solver, transferCall(a, sig), 'ERC3009InvalidSignature')
    expect(await used(a)).toBe(false)
  })

  it('accepts the bytes-signature overload and lets only the payee receiveWithAuthorization', async () => {
    const { user, other, solver } = tc.accounts
    const a = await authorization()
    const { signature } = await signAuthorization(user, usdc.domain, 'TransferWithAuthorization', a)
    const args = [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, signature]
    const start = await balanceOf(tc, usdc, other.address)
    await tc.send(solver, {
      address: usdc.address,
      abi: UsdcToken.abi,
      functionName: 'transferWithAuthorization',
      args,
    })

    const r = await authorization()
    const rs = await signAuthorization(user, usdc.domain, 'ReceiveWithAuthorization', r)
    const receive = {
      address: usdc.address,
      abi: UsdcToken.abi,
      functionName: 'receiveWithAuthorization',
      args: [r.from, r.to, r.value, r.validAfter, r.validBefore, r.nonce, rs.v, rs.r, rs.s],
    }
    await tc.expectRevert(solver, receive, 'ERC20InvalidReceiver')
    await tc.send(other, receive)
    expect(await balanceOf(tc, usdc, other.address)).toBe(start + a.value + r.value)
  })

  it('cancelAuthorization burns the nonce so the authorization can no longer be used', async () => {
    const { user, solver } = tc.accounts
    const a = await authorization()
    const sig = await signAuthorization(user, usdc.domain, 'TransferWithAuthorization', a)
    const c = await signCancel(user, usdc.domain, a.nonce)
    await tc.send(solver, {
      address: usdc.address,
      abi: UsdcToken.abi,
      functionName: 'cancelAuthorization',
      args: [user.address, a.nonce, c.v, c.r, c.s],
    })
    expect(await used(a)).toBe(true)
    await tc.expectRevert(solver, transferCall(a, sig), 'ERC3009UsedAuthorization')
  })

  it('settles a payload signed by the official @x402/evm exact client', async () => {
    const { user, other, solver } = tc.accounts
    const client = new ExactEvmScheme(toClientEvmSigner(user))
    const { payload } = await client.createPaymentPayload(2, {
      scheme: 'exact',
      network: `eip155:${tc.chain.id}`,
      asset: usdc.address,
      amount: '250000',
      payTo: other.address,
      maxTimeoutSeconds: 3600,
      extra: { name: usdc.domain.name, version: usdc.domain.version },
    })
    const { authorization: auth, signature } = payload as { authorization: Record<string, string>; signature: Hex }
    const a: Authorization = {
      from: auth.from as Hex,
      to: auth.to as Hex,
      value: BigInt(auth.value!),
      nonce: auth.nonce as Hex,
      validAfter: BigInt(auth.validAfter!),
      validBefore: BigInt(auth.validBefore!),
    }
    const { r, s, v, yParity } = parseSignature(signature)
    const before = await balanceOf(tc, usdc, other.address)
    await tc.send(solver, transferCall(a, { r, s, v: Number(v ?? BigInt(yParity + 27)) }))
    expect(await balanceOf(tc, usdc, other.address)).toBe(before + 250_000n)
  })
})
