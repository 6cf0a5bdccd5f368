import { type Address, erc20Abi } from 'viem'
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'
import * as PermitToken from '../../contracts/evm/artifacts/PermitToken.js'
import * as RfqSwap from '../../contracts/evm/artifacts/RfqSwap.js'
import { createSwapClient, type SwapClient } from '../../src/sdk/swap/index.js'
import type { TestDaemon } from './daemon.js'

export type SwapUser = { account: PrivateKeyAccount; address: Address; parx: SwapClient }

/** A fresh wallet holding the given tokens (human amounts) and no ETH, with an SDK client on the daemon. */
export async function newUser(d: TestDaemon, apiKey: string, funds: Record<string, string> = {}): Promise<SwapUser> {
  const account = privateKeyToAccount(generatePrivateKey())
  for (const [token, amount] of Object.entries(funds)) {
    await d.call('/api/local/faucet', { body: { to: account.address, token, amount } })
  }
  return { account, address: account.address, parx: createSwapClient({ account, apiUrl: d.urls.api, apiKey }) }
}

/**
 * Everything a swap may move, in base units: each token's balance and permit nonce of each holder,
 * their router nonces and ETH. Read in one multicall, at the latest block.
 */
export async function snapshot(d: TestDaemon, holders: Record<string, Address>): Promise<Record<string, bigint>> {
  const chain = d.services.base
  const router = chain.contracts.router!
  const keys: string[] = []
  const calls: unknown[] = []
  for (const [who, address] of Object.entries(holders)) {
    keys.push(`router nonce ${who}`)
    calls.push({ address: router, abi: RfqSwap.abi, functionName: 'nonces', args: [address] })
    for (const t of Object.values(chain.tokens)) {
      keys.push(`${t.symbol} ${who}`, `${t.symbol} permit nonce ${who}`)
      calls.push(
        { address: t.address, abi: erc20Abi, functionName: 'balanceOf', args: [address] },
        { address: t.address, abi: PermitToken.abi, functionName: 'nonces', args: [address] },
      )
    }
  }
  const values = (await chain.client.multicall({ contracts: calls as never, allowFailure: false })) as bigint[]
  const out: Record<string, bigint> = Object.fromEntries(keys.map((k, i) => [k, values[i]!]))
  for (const [who, address] of Object.entries(holders)) out[`ETH ${who}`] = await chain.client.getBalance({ address })
  return out
}

/** `after - before` per key, leaving out what did not move. */
export function moved(before: Record<string, bigint>, after: Record<string, bigint>): Record<string, bigint> {
  const out: Record<string, bigint> = {}
  for (const k of Object.keys(after)) if (after[k] !== before[k]) out[k] = after[k]! - (before[k] ?? 0n)
  return out
}
