import { createWalletClient, getAddress, http, isAddress, type Address, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { BaseError } from '../../src/errors/index.js'
import { assertFits, UINT256_MAX } from '../../src/sdk/amount-range.js'
import { toBaseUnits } from '../../src/sdk/units.js'
import * as PermitToken from '../../contracts/evm/artifacts/PermitToken.js'
import type { EvmChain } from '../chains/evm/chain.js'
import type { Faucet } from '../services.js'

export type SolanaFaucet = (p: { to: string; token: string; amount: string }) => Promise<string>

/**
 * The local faucet: mints the registry's tokens (or sets ETH) on the embedded EVM networks with the
 * deployer key, and delegates Solana to the embedded cluster's faucet.
 */
export function localFaucet(p: { evm: Record<string, EvmChain>; deployerKey: Hex; solanaKey: string; solana: SolanaFaucet }): Faucet {
  const deployer = privateKeyToAccount(p.deployerKey)
  // One queue per chain: the deployer's nonces stay in order under concurrent faucet calls.
  const queues = new Map<string, Promise<unknown>>()
  const serial = <T>(key: string, fn: () => Promise<T>): Promise<T> => {
    const next = (queues.get(key) ?? Promise.resolve()).then(fn, fn)
    queues.set(key, next.catch(() => undefined))
    return next
  }

  return {
    async mint({ network, to, token, amount }) {
      if (network === p.solanaKey) return { tx: await p.solana({ to, token, amount }) }
      const chain = p.evm[network]
      if (!chain) throw new BaseError('BAD_REQUEST', `unknown network '${network}'; the local networks are ${[...Object.keys(p.evm), p.solanaKey].join(', ')}`)
      if (!isAddress(to, { strict: false })) throw new BaseError('BAD_REQUEST', `invalid field 'to': not an EVM address`)
      const address = getAddress(to)
      if (token === 'ETH') {
        const wei = toBaseUnits(amount, 18)
        assertFits({ adding: wei, max: UINT256_MAX, what: 'an ETH balance' })
        return serial(network, async () => {
          const balance = await chain.client.getBalance({ address })
          assertFits({ adding: wei, held: balance, max: UINT256_MAX, what: `the ETH balance of ${address}` })
          await chain.client.request({ method: 'anvil_setBalance' as never, params: [address, `0x${(balance + wei).toString(16)}`] as never })
          return { tx: 'anvil_setBalance' }
        })
      }
      const t = chain.tokens[token]
      if (!t) throw new BaseError('UNKNOWN_TOKEN', `${network} has no token '${token}'; it has ${['ETH', ...Object.keys(chain.tokens)].join(', ')}`)
      const value = toBaseUnits(amount, t.decimals)
      assertFits({ adding: value, max: UINT256_MAX, what: `the ${token} supply` })
      const wallet = createWalletClient({ account: deployer, chain: chain.client.chain, transport: http(chain.rpcUrl) })
      return serial(network, async () => {
        // The token reverts a mint past uint256 supply; refuse it as the input error it is.
        const supply = (await chain.client.readContract({ address: t.address, abi: PermitToken.abi, functionName: 'totalSupply' } as never)) as bigint
        assertFits({ adding: value, held: supply, max: UINT256_MAX, what: `the ${token} supply on ${network}` })
        const hash = await wallet.writeContract({ address: t.address, abi: PermitToken.abi, functionName: 'mint', args: [address as Address, value] } as never)
        const receipt = await chain.client.waitForTransactionReceipt({ hash, pollingInterval: 20 })
        if (receipt.status !== 'success') throw new BaseError('RELAY_FAILED', `the faucet mint reverted (${hash})`)
        return { tx: hash }
      })
    },
  }
}
