import { parseUnits } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TOKEN_A, TOKEN_B, USDC } from '../../src/networks/registry.js'
import * as PermitToken from './artifacts/PermitToken.js'
import * as UsdcToken from './artifacts/UsdcToken.js'
import { startTestChain, type TestChain } from './testing/chain.js'
import { signPermit } from './testing/sign.js'
import { type DeployedToken, deployToken, mint } from './testing/tokens.js'

let tc: TestChain
const tokens: Record<string, DeployedToken> = {}

beforeAll(async () => {
  tc = await startTestChain()
  for (const symbol of [USDC, TOKEN_A, TOKEN_B]) tokens[symbol] = await deployToken(tc, symbol)
})
afterAll(async () => tc?.stop())

describe('PermitToken and UsdcToken', () => {
  it.each([USDC, TOKEN_A, TOKEN_B])(
    '%s reports its registry domain via name(), version() and ERC-5267',
    async (symbol) => {
      const t = tokens[symbol]!
      const read = (functionName: 'name' | 'symbol' | 'version' | 'decimals') =>
        tc.client.readContract({ address: t.address, abi: PermitToken.abi, functionName })
      const [, name, version, chainId, verifyingContract] = await tc.client.readContract({
        address: t.address,
        abi: PermitToken.abi,
        functionName: 'eip712Domain',
      })
      expect({ name, version, chainId: Number(chainId), verifyingContract }).toEqual(t.domain)
      expect(await read('name')).toBe(t.domain.name)
      expect(await read('version')).toBe(t.domain.version)
      expect(await read('symbol')).toBe(symbol)
      expect(await read('decimals')).toBe(t.decimals)
    },
  )

  it('lets only the minter mint', async () => {
    const t = tokens[TOKEN_A]!
    const { user } = tc.accounts
    await tc.expectRevert(
      user,
      { address: t.address, abi: t.abi, functionName: 'mint', args: [user.address, 1n] },
      'NotMinter',
    )
    expect(await balance(t, user.address)).toBe(0n)
    await mint(tc, t, user.address, 5n)
    expect(await balance(t, user.address)).toBe(5n)
  })
})

describe('EIP-2612 permit', () => {
  it.each([USDC, TOKEN_A, TOKEN_B])('%s accepts a permit signed under its own domain', async (symbol) => {
    const t = tokens[symbol]!
    const { user, other } = tc.accounts
    const value = parseUnits('12.5', t.decimals)
    const nonce = await nonces(t)
    const deadline = (await tc.latestTimestamp()) + 3600n
    const { v, r, s } = await signPermit(user, t.domain, { spender: other.address, value, nonce, deadline })
    await tc.send(other, {
      address: t.address,
      abi: t.abi,
      functionName: 'permit',
      args: [user.address, other.address, value, deadline, v, r, s],
    })
    expect(await allowance(t)).toBe(value)
    expect(await nonces(t)).toBe(nonce + 1n)
  })

  it('PUSD rejects a permit signed under the USDC domain (wrong permit domain)', async () => {
    const pusd = tokens[TOKEN_A]!
    const { user, other } = tc.accounts
    const before = { allowance: await allowance(pusd), nonce: await nonces(pusd) }
    const deadline = (await tc.latestTimestamp()) + 3600n
    const usdcDomainAtPusd = { ...tokens[USDC]!.domain, verifyingContract: pusd.address }
    const { v, r, s } = await signPermit(user, usdcDomainAtPusd, {
      spender: other.address,
      value: 777n,
      nonce: before.nonce,
      deadline,
    })
    const call = {
      address: pusd.address,
      abi: pusd.abi,
      functionName: 'permit',
      args: [user.address, other.address, 777n, deadline, v, r, s],
    }
    await tc.expectRevert(other, call, 'InvalidPermitSignature')
    expect({ allowance: await allowance(pusd), nonce: await nonces(pusd) }).toEqual(before)
  })

  it('rejects a permit past its deadline and a replayed permit', async () => {
    const t = tokens[TOKEN_B]!
    const { user, other } = tc.accounts
    const nonce = await nonces(t)
    const past = (await tc.latestTimestamp()) - 1n
    const expired = await signPermit(user, t.domain, { spender: other.address, value: 1n, nonce, deadline: past })
    const args = [user.address, other.address, 1n, past, expired.v, expired.r, expired.s]
    await tc.expectRevert(
      other,
      { address: t.address, abi: t.abi, functionName: 'permit', args },
      'ERC2612ExpiredSignature',
    )

    const deadline = past + 3600n
    const ok = await signPermit(user, t.domain, { spender: other.address, value: 2n, nonce, deadline })
    const call = {
      address: t.address,
      abi: t.abi,
      functionName: 'permit',
      args: [user.address, other.address, 2n, deadline, ok.v, ok.r, ok.s],
    }
    await tc.send(other, call)
    await tc.expectRevert(other, call, 'InvalidPermitSignature')
    expect(await nonces(t)).toBe(nonce + 1n)
  })

  it('USDC also takes the permit signature as bytes, as FiatToken v2.2 does', async () => {
    const t = tokens[USDC]!
    const { user, other } = tc.accounts
    const nonce = await nonces(t)
    const deadline = (await tc.latestTimestamp()) + 3600n
    const { signature } = await signPermit(user, t.domain, { spender: other.address, value: 31n, nonce, deadline })
    await tc.send(other, {
      address: t.address,
      abi: UsdcToken.abi,
      functionName: 'permit',
      args: [user.address, other.address, 31n, deadline, signature],
    })
    expect(await allowance(t)).toBe(31n)
  })
})

function balance(t: DeployedToken, owner: `0x${string}`) {
  return tc.client.readContract({ address: t.address, abi: PermitToken.abi, functionName: 'balanceOf', args: [owner] })
}
function allowance(t: DeployedToken) {
  const args = [tc.accounts.user.address, tc.accounts.other.address] as const
  return tc.client.readContract({ address: t.address, abi: PermitToken.abi, functionName: 'allowance', args })
}
function nonces(t: DeployedToken) {
  return tc.client.readContract({
    address: t.address,
    abi: PermitToken.abi,
    functionName: 'nonces',
    args: [tc.accounts.user.address],
  })
}
