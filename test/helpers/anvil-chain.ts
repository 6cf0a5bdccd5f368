import type { Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll } from 'vitest'
import { type Anvil, startAnvil } from '../../daemon/chains/embedded/anvil.js'
import { type EvmChain, evmChain } from '../../daemon/chains/evm/chain.js'
import { networks } from '../../src/networks/registry.js'

/**
 * One anvil for a test file (or describe block), as an embedded `local-base` chain: started
 * before its tests, stopped after them.
 */
export function useAnvilChain() {
  let anvil: Anvil | undefined
  let chain: EvmChain | undefined
  beforeAll(async () => {
    const spec = networks['local-base']!
    anvil = await startAnvil({ chainId: spec.chainId! })
    chain = evmChain(spec, anvil.rpcUrl, {})
  })
  afterAll(async () => anvil?.stop())
  const started = () => {
    if (!chain) throw new Error('the anvil chain is started by beforeAll: use it inside a test')
    return chain
  }
  const rpc = <T = unknown>(method: string, params: unknown[] = []) =>
    started().client.request({ method, params } as never) as Promise<T>
  return {
    get chain() {
      return started()
    },
    /** The anvil's JSON-RPC URL. */
    get rpcUrl() {
      started()
      return anvil!.rpcUrl
    },
    /** The anvil process's pid. */
    get pid() {
      started()
      return anvil!.pid
    },
    rpc,
    /** A fresh key holding 100 ETH on the chain. */
    async fundedKey(): Promise<Hex> {
      const key = generatePrivateKey()
      await rpc('anvil_setBalance', [privateKeyToAccount(key).address, '0x56BC75E2D63100000'])
      return key
    },
  }
}
