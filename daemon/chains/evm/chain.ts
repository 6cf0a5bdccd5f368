import { type Address, createPublicClient, custom, defineChain, type PublicClient } from 'viem'
import type { NetworkSpec } from '../../../src/networks/registry.js'
import { leanRpc } from './lean-transport.js'

export type EvmToken = {
  symbol: string
  address: Address
  decimals: number
  permitDomain?: { name: string; version: string }
  eip3009?: boolean
}

/** One EVM network as the routes and the worker see it; nothing here says whether it is embedded. */
export type EvmChain = {
  key: string
  spec: NetworkSpec
  chainId: number
  rpcUrl: string
  client: PublicClient
  tokens: Record<string, EvmToken>
  /** Deployed contracts by name: router, factory, `pair:PUSD/USDC`, ... */
  contracts: Record<string, Address>
}

export function evmClient(spec: NetworkSpec, rpcUrl: string): PublicClient {
  const chain = defineChain({
    id: spec.chainId!,
    name: spec.key,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
    contracts: { multicall3: { address: '0xcA11bde05977b3631167028862bE2a173976CA11' } },
  })
  // Embedded chains mine at once: poll fast. Real chains: viem's defaults are fine.
  return createPublicClient({
    chain,
    transport: custom(leanRpc(rpcUrl), { retryCount: 2 }),
    pollingInterval: spec.rpc === 'embedded' ? 50 : 1_000,
  }) as PublicClient
}

export function evmChain(spec: NetworkSpec, rpcUrl: string, addresses: Record<string, string>): EvmChain {
  const tokens: Record<string, EvmToken> = {}
  for (const t of spec.tokens) {
    const address = (addresses[t.symbol] ?? t.address) as Address | undefined
    if (address)
      tokens[t.symbol] = {
        symbol: t.symbol,
        address,
        decimals: t.decimals,
        permitDomain: t.permitDomain,
        eip3009: t.eip3009,
      }
  }
  const contracts = Object.fromEntries(Object.entries(addresses).filter(([k]) => !tokens[k])) as Record<string, Address>
  return { key: spec.key, spec, chainId: spec.chainId!, rpcUrl, client: evmClient(spec, rpcUrl), tokens, contracts }
}
