import { type Address, encodeFunctionData, getAddress, type Hex, isAddress } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import * as PermitToken from '../../contracts/evm/artifacts/PermitToken.js'
import { BaseError } from '../../src/errors/index.js'
import { assertFits, UINT256_MAX } from '../../src/sdk/amount-range.js'
import { toBaseUnits } from '../../src/sdk/units.js'
import type { EvmChain } from '../chains/evm/chain.js'
import type { Outbox } from '../chains/evm/outbox.js'
import { type TxSender, txSender } from '../chains/evm/tx-sender.js'
import type { Faucet } from '../services.js'

export type SolanaFaucet = (p: { to: string; token: string; amount: string }) => Promise<string>

export type LocalFaucetParameters = {
  evm: Record<string, EvmChain>
  deployerKey: Hex
  solanaKey: string
  solana: SolanaFaucet
  /**
   * Where each mint is written before it is broadcast (with `after`: no nonce is taken before the
   * outbox replay at start), so a mint answered just before a crash lands again from its signed bytes.
   */
  outbox?: Outbox
  after?: Promise<unknown>
}

/**
 * The local faucet: mints the registry's tokens (or sets ETH) on the embedded EVM networks with the
 * deployer key, and delegates Solana to the embedded cluster's faucet (whose ledger is SQLite,
 * written before the answer).
 */
export function localFaucet(p: LocalFaucetParameters): Faucet {
  const deployer = privateKeyToAccount(p.deployerKey)
  // One sender per chain for the deployer key: nonces in order, every mint in the outbox first. The
  // deployer signs nothing else once the daemon serves (deployments run before; the platform's
  // ERC-4337 stack has keys of its own).
  const senders = new Map<string, TxSender>()
  const senderFor = (network: string, chain: EvmChain) => {
    let sx = senders.get(network)
    if (!sx) senders.set(network, (sx = txSender(chain, p.deployerKey, { outbox: p.outbox, after: p.after })))
    return sx
  }
  // One queue per chain: a supply check and its mint are not interleaved with another mint.
  const queues = new Map<string, Promise<unknown>>()
  const serial = <T>(key: string, fn: () => Promise<T>): Promise<T> => {
    const next = (queues.get(key) ?? Promise.resolve()).then(fn, fn)
    queues.set(
      key,
      next.catch(() => undefined),
    )
    return next
  }

  return {
    async mint({ network, to, token, amount }) {
      if (network === p.solanaKey) return { tx: await p.solana({ to, token, amount }) }
      const chain = p.evm[network]
      if (!chain)
        throw new BaseError(
          'BAD_REQUEST',
          `unknown network '${network}'; the local networks are ${[...Object.keys(p.evm), p.solanaKey].join(', ')}`,
        )
      if (!isAddress(to, { strict: false }))
        throw new BaseError('BAD_REQUEST', `invalid field 'to': not an EVM address`)
      const address = getAddress(to)
      if (token === 'ETH') {
        const wei = toBaseUnits(amount, 18)
        assertFits({ adding: wei, max: UINT256_MAX, what: 'an ETH balance' })
        return serial(network, async () => {
          const balance = await chain.client.getBalance({ address })
          assertFits({ adding: wei, held: balance, max: UINT256_MAX, what: `the ETH balance of ${address}` })
          await chain.client.request({
            method: 'anvil_setBalance' as never,
            params: [address, `0x${(balance + wei).toString(16)}`] as never,
          })
          return { tx: 'anvil_setBalance' }
        })
      }
      const t = chain.tokens[token]
      if (!t)
        throw new BaseError(
          'UNKNOWN_TOKEN',
          `${network} has no token '${token}'; it has ${['ETH', ...Object.keys(chain.tokens)].join(', ')}`,
        )
      const value = toBaseUnits(amount, t.decimals)
      assertFits({ adding: value, max: UINT256_MAX, what: `the ${token} supply` })
      const data = encodeFunctionData({
        abi: PermitToken.abi,
        functionName: 'mint',
        args: [address as Address, value],
      } as never)
      return serial(network, async () => {
        // The token reverts a mint past uint256 supply; refuse it as the input error it is.
        const supply = (await chain.client.readContract({
          address: t.address,
          abi: PermitToken.abi,
          functionName: 'totalSupply',
        } as never)) as bigint
        assertFits({ adding: value, held: supply, max: UINT256_MAX, what: `the ${token} supply on ${network}` })
        const gas = await chain.client.estimateGas({ account: deployer.address, to: t.address, data })
        const { hash, receipt } = await senderFor(network, chain).sendAndWait({
          to: t.address,
          data,
          gas: (gas * 6n) / 5n,
          purpose: 'faucet',
          refs: `${address}:${token}:${value}`,
        })
        if (receipt.status !== 'success') throw new BaseError('RELAY_FAILED', `the faucet mint reverted (${hash})`)
        return { tx: hash }
      })
    },
  }
}
