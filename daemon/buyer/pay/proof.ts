import { getAbiItem, type Hex, parseAbiItem } from 'viem'
import { entryPoint07Abi } from 'viem/account-abstraction'
import type { EvmChain } from '../../chains/evm/chain.js'

/**
 * What a signed payment lets its holder do on chain, so the platform can tell afterwards whether
 * money moved without trusting the seller's answer: an EIP-2612 permit is used once the token's
 * `nonces(owner)` passed its nonce; an EIP-3009 authorization (x402 eip3009, MPP evm charge) once
 * `authorizationState(from, nonce)` is true. `validBefore` (unix seconds) is the last moment it can
 * be used: the permit's deadline (usable while block.timestamp <= deadline) or the authorization's
 * validBefore (usable while block.timestamp < validBefore). Until then the spend stays reserved.
 */
export type PaymentProof =
  | { kind: 'erc2612'; token: Hex; owner: Hex; nonce: bigint; to: Hex; value: bigint; validBefore: bigint }
  | { kind: 'eip3009'; token: Hex; from: Hex; nonce: Hex; validBefore: bigint }
  /**
   * A send's user operation the bundler took without answering (daemon/buyer/send.ts): included
   * once the EntryPoint logged a successful UserOperationEvent with its hash, searched from
   * `fromBlock` (the head when it was sent); `validBefore` is its sponsor signature's validUntil
   * (usable while block.timestamp <= validUntil, as a permit's deadline).
   */
  | { kind: 'userOp'; entryPoint: Hex; sender: Hex; hash: Hex; fromBlock: bigint; validBefore: bigint }

const abi = [
  parseAbiItem('function nonces(address) view returns (uint256)'),
  parseAbiItem('function authorizationState(address, bytes32) view returns (bool)'),
] as const
const authorizationUsed = parseAbiItem('event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)')
const userOperationEvent = getAbiItem({ abi: entryPoint07Abi, name: 'UserOperationEvent' })
const transfer = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)')
/** How far back the settlement is looked for: it happened during this request. */
const RECENT_BLOCKS = 1000n
/**
 * How far past `validBefore` the local clock must be before a chain whose head is older (an idle
 * chain that mines on demand, like the embedded anvil) is taken to be past it too: a chain's next
 * block carries the current time, within seconds; a minute covers the slack.
 */
export const EXPIRY_MARGIN_SECONDS = 60n

/** Whether the signed payment was used on chain; undefined when the chain could not say. */
export async function wasUsed(chain: EvmChain, p: PaymentProof): Promise<boolean | undefined> {
  try {
    // Included and reverted moved nothing (the paymaster paid the gas): unused, like one never included.
    if (p.kind === 'userOp') return (await userOpEvent(chain, p))?.args.success === true
    if (p.kind === 'erc2612')
      return (
        (await chain.client.readContract({ address: p.token, abi, functionName: 'nonces', args: [p.owner] })) > p.nonce
      )
    return await chain.client.readContract({
      address: p.token,
      abi,
      functionName: 'authorizationState',
      args: [p.from, p.nonce],
    })
  } catch {
    return undefined
  }
}

/**
 * Whether no block from now on can use the payment: the chain's head is past `validBefore` (block
 * timestamps never go back), or the local clock is past it by EXPIRY_MARGIN_SECONDS. Checked
 * BEFORE `wasUsed`, so an unused answer read afterwards is final. Undefined when the chain did not answer.
 */
export async function hasExpired(
  chain: EvmChain,
  p: PaymentProof,
  nowSeconds = BigInt(Math.floor(Date.now() / 1000)),
): Promise<boolean | undefined> {
  if (nowSeconds >= p.validBefore + EXPIRY_MARGIN_SECONDS) return true
  try {
    const head = await chain.client.getBlock({ blockTag: 'latest' })
    return p.kind === 'eip3009' ? head.timestamp >= p.validBefore : head.timestamp > p.validBefore
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
  if (p.kind === 'userOp') return (await userOpEvent(chain, p).catch(() => undefined))?.transactionHash ?? null
  try {
    const head = await chain.client.getBlockNumber({ cacheTime: 0 })
    const fromBlock = head > RECENT_BLOCKS ? head - RECENT_BLOCKS : 0n
    if (p.kind === 'eip3009') {
      const logs = await chain.client.getLogs({
        address: p.token,
        event: authorizationUsed,
        args: { authorizer: p.from, nonce: p.nonce },
        fromBlock,
        toBlock: 'latest',
      })
      return logs[0]?.transactionHash ?? null
    }
    const logs = await chain.client.getLogs({
      address: p.token,
      event: transfer,
      args: { from: p.owner, to: p.to },
      fromBlock,
      toBlock: 'latest',
    })
    return logs.filter((l) => l.args.value === p.value).at(-1)?.transactionHash ?? null
  } catch {
    return null
  }
}

/** The proof as the spends ledger keeps it (JSON; bigints as decimal strings). */
export function encodeProof(p: PaymentProof): string {
  return JSON.stringify(p, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))
}

/**
 * The EntryPoint's event for the operation, if it was included (searched from the block it was sent at); throws when
 * the chain does not answer.
 */
async function userOpEvent(chain: EvmChain, p: Extract<PaymentProof, { kind: 'userOp' }>) {
  const logs = await chain.client.getLogs({
    address: p.entryPoint,
    event: userOperationEvent,
    args: { userOpHash: p.hash },
    fromBlock: p.fromBlock,
    toBlock: 'latest',
  })
  return logs[0]
}

/** The ledger's JSON back into a proof; undefined for anything that is not one. */
export function decodeProof(text: string): PaymentProof | undefined {
  try {
    const o = JSON.parse(text) as Record<string, string>
    if (o.kind === 'eip3009')
      return {
        kind: 'eip3009',
        token: o.token as Hex,
        from: o.from as Hex,
        nonce: o.nonce as Hex,
        validBefore: BigInt(o.validBefore!),
      }
    if (o.kind === 'userOp') {
      return {
        kind: 'userOp',
        entryPoint: o.entryPoint as Hex,
        sender: o.sender as Hex,
        hash: o.hash as Hex,
        fromBlock: BigInt(o.fromBlock!),
        validBefore: BigInt(o.validBefore!),
      }
    }
    if (o.kind === 'erc2612') {
      return {
        kind: 'erc2612',
        token: o.token as Hex,
        owner: o.owner as Hex,
        nonce: BigInt(o.nonce!),
        to: o.to as Hex,
        value: BigInt(o.value!),
        validBefore: BigInt(o.validBefore!),
      }
    }
  } catch {}
  return undefined
}
