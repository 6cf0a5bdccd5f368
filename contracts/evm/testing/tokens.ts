import type { Address } from 'viem'
import { tokenSpec } from '../../../src/networks/registry.js'
import * as PermitToken from '../artifacts/PermitToken.js'
import * as UsdcToken from '../artifacts/UsdcToken.js'
import type { TestChain } from './chain.js'
import type { Domain } from './sign.js'

export type DeployedToken = {
  symbol: string
  address: Address
  decimals: number
  /** The EIP-712 domain of its permits (and, for USDC, its EIP-3009 authorizations). */
  domain: Domain
  abi: typeof UsdcToken.abi | typeof PermitToken.abi
}

/**
 * Deploys a token of the local-base registry entry, as the embedded chain does: the USDC entry
 * (EIP-3009) as UsdcToken, the others as PermitToken, each with its own permit domain.
 */
export async function deployToken(tc: TestChain, symbol: string): Promise<DeployedToken> {
  const spec = tokenSpec('local-base', symbol)
  if (!spec?.permitDomain) throw new Error(`local-base has no EVM token ${symbol}`)
  const art = spec.eip3009 ? UsdcToken : PermitToken
  const { name, version } = spec.permitDomain
  const address = await tc.deploy(art.abi, art.bytecode, [
    name,
    symbol,
    version,
    spec.decimals,
    tc.accounts.deployer.address,
  ])
  return {
    symbol,
    address,
    decimals: spec.decimals,
    abi: art.abi,
    domain: { name, version, chainId: tc.chain.id, verifyingContract: address },
  }
}

export async function mint(tc: TestChain, token: DeployedToken, to: Address, amount: bigint): Promise<void> {
  await tc.send(tc.accounts.deployer, {
    address: token.address,
    abi: PermitToken.abi,
    functionName: 'mint',
    args: [to, amount],
  })
}

export async function balanceOf(tc: TestChain, token: DeployedToken | Address, owner: Address): Promise<bigint> {
  const address = typeof token === 'string' ? token : token.address
  return tc.client.readContract({ address, abi: PermitToken.abi, functionName: 'balanceOf', args: [owner] })
}
