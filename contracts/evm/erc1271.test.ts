import { type Address, keccak256, parseUnits, toHex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as UsdcToken from './artifacts/UsdcToken.js'
import { type RfqFixture, setupRfq } from './testing/rfq.js'
import { balanceOf, mint } from './testing/tokens.js'
import { ACCEPTS_ALL, REJECTS_ALL } from './testing/wallets.js'

let f: RfqFixture
let accepting: Address
let rejecting: Address

beforeAll(async () => {
  f = await setupRfq()
  const wallet = (label: string) => `0x${keccak256(toHex(label)).slice(26)}` as Address
  accepting = wallet('parx erc1271 accepting wallet')
  rejecting = wallet('parx erc1271 rejecting wallet')
  await f.tc.testClient.setCode({ address: accepting, bytecode: ACCEPTS_ALL })
  await f.tc.testClient.setCode({ address: rejecting, bytecode: REJECTS_ALL })
  for (const w of [accepting, rejecting]) {
    await mint(f.tc, f.pusd, w, parseUnits('10', 18))
    await mint(f.tc, f.usdc, w, 10_000_000n)
  }
})
afterAll(async () => f?.tc.stop())

describe('contract wallets (ERC-1271)', () => {
  it('RfqSwap takes the order and the permit of a wallet that approves them', async () => {
    const x = await f.prepare({
      input: f.pusd,
      output: f.usdc,
      inputAmount: parseUnits('2', 18),
      minOutputAmount: 2_000_000n,
      overrides: { user: accepting },
    })
    await f.tc.send(f.tc.accounts.solver, f.swapCall(x))
    expect(await balanceOf(f.tc, f.pusd, accepting)).toBe(parseUnits('8', 18))
    expect(await balanceOf(f.tc, f.usdc, accepting)).toBe(12_000_000n)
    expect(await f.routerNonce(accepting)).toBe(1n)
  })

  it('RfqSwap rejects an order its wallet does not approve', async () => {
    const x = await f.prepare({
      input: f.pusd,
      output: f.usdc,
      inputAmount: parseUnits('2', 18),
      minOutputAmount: 2_000_000n,
      overrides: { user: rejecting },
    })
    await f.tc.expectRevert(f.tc.accounts.solver, f.swapCall(x), 'BadSignature')
    expect(await balanceOf(f.tc, f.pusd, rejecting)).toBe(parseUnits('10', 18))
  })

  it('USDC transferWithAuthorization asks the wallet on both overloads, as FiatToken v2.2 does', async () => {
    const { other, solver } = f.tc.accounts
    const now = await f.tc.latestTimestamp()
    const auth = (from: Address, n: number) =>
      [from, other.address, 1_000_000n, now - 1n, now + 3600n, keccak256(toHex(`erc1271 auth ${n}`))] as const
    const usdc = { address: f.usdc.address, abi: UsdcToken.abi, functionName: 'transferWithAuthorization' } as const
    const before = await balanceOf(f.tc, f.usdc, other.address)
    await f.tc.send(solver, { ...usdc, args: [...auth(accepting, 1), '0x1234'] })
    await f.tc.send(solver, {
      ...usdc,
      args: [...auth(accepting, 2), 27, `0x${'00'.repeat(32)}`, `0x${'00'.repeat(32)}`],
    })
    expect(await balanceOf(f.tc, f.usdc, other.address)).toBe(before + 2_000_000n)
    await f.tc.expectRevert(solver, { ...usdc, args: [...auth(rejecting, 3), '0x1234'] }, 'ERC3009InvalidSignature')
  })
})
