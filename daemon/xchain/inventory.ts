import type { PublicKey } from '@solana/web3.js'
import { type Address, erc20Abi } from 'viem'
import { BaseError } from '../../src/errors/index.js'
import type { EvmChain } from '../chains/evm/chain.js'
import type { SolanaChain } from '../chains/solana/chain.js'
import { ataOf, chainTokens, rpc, tokenAmount } from '../sol/accounts.js'
import type { BalanceReader } from './reservations.js'

/** The solver's live balance of a token on any of the daemon's chains (what reservations count against). */
export function solverBalances(p: {
  evm: Record<string, EvmChain>
  solana: SolanaChain
  evmSolver: Address
  solanaSolver: PublicKey
}): BalanceReader {
  return async (network, token) => {
    const chain = p.evm[network]
    if (chain) {
      const t = chain.tokens[token]
      if (!t)
        throw new BaseError(
          'UNKNOWN_TOKEN',
          `${token} is not a token on ${network}; use one of ${Object.keys(chain.tokens).join(', ')}`,
        )
      const balance = await chain.client
        .readContract({ address: t.address, abi: erc20Abi, functionName: 'balanceOf', args: [p.evmSolver] })
        .catch((e: unknown) => {
          throw new BaseError(
            'CHAIN_UNAVAILABLE',
            `${network} did not answer a balance read (${e instanceof Error ? e.message : String(e)}); retry shortly`,
            { cause: e },
          )
        })
      return { balance, decimals: t.decimals }
    }
    if (network === p.solana.key) {
      const tokens = await chainTokens(p.solana)
      const t = tokens[token]
      if (!t)
        throw new BaseError(
          'UNKNOWN_TOKEN',
          `${token} is not a token on ${network}; use one of ${Object.keys(tokens).join(', ')}`,
        )
      const ata = ataOf(p.solanaSolver, t)
      const info = await rpc(() => p.solana.connection.getAccountInfo(ata))
      return { balance: tokenAmount(ata, info, t), decimals: t.decimals }
    }
    throw new BaseError(
      'NETWORK_UNSUPPORTED',
      `network ${network} is not served by this daemon; use one of ${[...Object.keys(p.evm), p.solana.key].join(', ')}`,
    )
  }
}
