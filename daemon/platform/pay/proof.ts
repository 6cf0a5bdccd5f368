import { parseAbiItem, type Hex } from 'viem'
import type { EvmChain } from '../../chains/evm/chain.js'

/**
 * What a signed payment lets its holder do on chain, so the platform can tell afterwards whether
 * money moved without trusting the seller's answer: an EIP-2612 permit is used once the token's
 * `nonces(owner)` passed its nonce; an EIP-3009 authorization (x402 eip3009, MPP evm charge) once
 * `authorizationState(from, nonce)` is true.
 */
export type PaymentProof =
  | { kind: 'erc2612'; token: Hex; owner: Hex; nonce: bigint }
  | { kind: 'eip3009'; token: Hex; from: Hex; nonce: Hex }

const abi = [
  parseAbiItem('function nonces(address) view returns (uint256)'),
  parseAbiItem('function authorizationState(address, bytes32) view returns (bool)'),
] as const
const authorizationUsed = parseAbiItem('event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)')

/** Whether the signed payment was used on chain; undefined when the chain could not say. */
export async function wasUsed(chain: EvmChain, p: PaymentProof): Promise<boolean | undefined> {
  try {
    if (p.kind === 'erc2612') return (await chain.client.readContract({ address: p.token, abi, functionName: 'nonces', args: [p.owner] })) > p.nonce
    return await chain.client.readContract({ address: p.token, abi, functionName: 'authorizationState', args: [p.from, p.nonce] })
  } catch {
    return undefined
  }
}

/** The transaction that used an EIP-3009 authorization, from its AuthorizationUsed event; null when not found. */
export async function usedIn(chain: EvmChain, p: PaymentProof): Promise<Hex | null> {
  if (p.kind !== 'eip3009') return null
  try {
    const head = await chain.client.getBlockNumber()
    const logs = await chain.client.getLogs({
      address: p.token, event: authorizationUsed, args: { authorizer: p.from, nonce: p.nonce }, fromBlock: head > 1000n ? head - 1000n : 0n, toBlock: head,
    })
    return logs[0]?.transactionHash ?? null
  } catch {
    return null
  }
}
