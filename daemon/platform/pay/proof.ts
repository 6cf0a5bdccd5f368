import { parseAbiItem, type Hex } from 'viem'
import type { EvmChain } from '../../chains/evm/chain.js'

/**
 * What a signed payment lets its holder do on chain, so the platform can tell afterwards whether
 * money moved without trusting the seller's answer: an EIP-2612 permit is used once the token's
 * `nonces(owner)` passed its nonce; an EIP-3009 authorization (x402 eip3009, MPP evm charge) once
 * `authorizationState(from, nonce)` is true.
 */
export type PaymentProof =
  | { kind: 'erc2612'; token: Hex; owner: Hex; nonce: bigint; to: Hex; value: bigint }
  | { kind: 'eip3009'; token: Hex; from: Hex; nonce: Hex }

const abi = [
  parseAbiItem('function nonces(address) view returns (uint256)'),
  parseAbiItem('function authorizationState(address, bytes32) view returns (bool)'),
] as const
const authorizationUsed = parseAbiItem('event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)')
const transfer = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)')
/** How far back the settlement is looked for: it happened during this request. */
const RECENT_BLOCKS = 1000n

/** Whether the signed payment was used on chain; undefined when the chain could not say. */
export async function wasUsed(chain: EvmChain, p: PaymentProof): Promise<boolean | undefined> {
  try {
    if (p.kind === 'erc2612') return (await chain.client.readContract({ address: p.token, abi, functionName: 'nonces', args: [p.owner] })) > p.nonce
    return await chain.client.readContract({ address: p.token, abi, functionName: 'authorizationState', args: [p.from, p.nonce] })
  } catch {
    return undefined
  }
}

/**
 * The transaction that used the payment: for EIP-3009 its AuthorizationUsed event; for a permit,
 * the latest Transfer of exactly the amount from the payer to the payee (the permit names the
 * facilitator, not the transfer). Null when not found in the recent blocks.
 */
export async function usedIn(chain: EvmChain, p: PaymentProof): Promise<Hex | null> {
  try {
    const head = await chain.client.getBlockNumber({ cacheTime: 0 })
    const fromBlock = head > RECENT_BLOCKS ? head - RECENT_BLOCKS : 0n
    if (p.kind === 'eip3009') {
      const logs = await chain.client.getLogs({ address: p.token, event: authorizationUsed, args: { authorizer: p.from, nonce: p.nonce }, fromBlock, toBlock: 'latest' })
      return logs[0]?.transactionHash ?? null
    }
    const logs = await chain.client.getLogs({ address: p.token, event: transfer, args: { from: p.owner, to: p.to }, fromBlock, toBlock: 'latest' })
    return logs.filter((l) => l.args.value === p.value).at(-1)?.transactionHash ?? null
  } catch {
    return null
  }
}
