import { type AccountInfo, type PublicKey, SYSVAR_CLOCK_PUBKEY } from '@solana/web3.js'
import { type Address, bytesToHex, type Hex, type PublicClient } from 'viem'
import * as OutputSettler from '../../../../contracts/evm/artifacts/OutputSettler.js'
import { decodeOrder, ORDER_LEN, ORDER_STATUS, orderPda } from '../../../../contracts/solana/client.js'
import type { SolanaReads } from '../../../chains/solana/reads.js'
import type { SourceRead } from '../../rail.js'

/**
 * The reads of the sol-origin rail, each on given reads or a given client: the solver's worker and
 * each attestor call them with clients of their own, so an attestor's view of the chains is its own.
 */

/** The Solana clock (unix seconds): the Clock sysvar when the node serves it, else wall time. */
export async function solanaNow(reads: SolanaReads): Promise<number> {
  try {
    const [info] = await reads.multipleAccounts([SYSVAR_CLOCK_PUBKEY], 'confirmed')
    return clockSeconds(info ?? null)
  } catch {}
  return Math.floor(Date.now() / 1000)
}

function clockSeconds(info: AccountInfo<Buffer> | null): number {
  if (info && info.data.length >= 40) return Number(info.data.readBigInt64LE(32))
  return Math.floor(Date.now() / 1000)
}

/** The whole origin_settler order account, including the output fields `decodeOrder` leaves out. */
export type OnChainOrder = ReturnType<typeof decodeOrder> & {
  destChain: Hex
  outputToken: Hex
  outputAmount: bigint
  recipient: Hex
}

export async function readOrderAccount(
  reads: SolanaReads,
  program: PublicKey,
  orderId: `0x${string}`,
): Promise<OnChainOrder | undefined> {
  const [info] = await reads.multipleAccounts([orderPda(program, orderId)], 'confirmed')
  return orderAccount(info ?? null, program)
}

function orderAccount(info: AccountInfo<Buffer> | null, program: PublicKey): OnChainOrder | undefined {
  if (!info || info.data.length !== ORDER_LEN || !info.owner.equals(program)) return undefined
  const data = new Uint8Array(info.data)
  const b = Buffer.from(data)
  return {
    ...decodeOrder(data),
    destChain: bytesToHex(data.subarray(224, 256)),
    outputToken: bytesToHex(data.subarray(256, 288)),
    outputAmount: BigInt(`0x${b.subarray(288, 320).toString('hex')}`),
    recipient: bytesToHex(data.subarray(320, 352)),
  }
}

/** The lock's state; `validUntil`: the lock transaction's lastValidBlockHeight, when known. */
export async function readLock(
  reads: SolanaReads,
  program: PublicKey,
  orderId: `0x${string}`,
  validUntil: number | null,
): Promise<SourceRead> {
  // Height before the account: a lock missing from a read made after its blockhash expired never lands.
  const height = await reads.blockHeight('confirmed')
  // The clock and the order in one read: one round trip, both from the same state.
  const [clock, info] = await reads.multipleAccounts([SYSVAR_CLOCK_PUBKEY, orderPda(program, orderId)], 'confirmed')
  const now = clockSeconds(clock ?? null)
  const order = orderAccount(info ?? null, program)
  if (!order) return { state: 'missing', now, lockDead: validUntil !== null && height > validUntil }
  return { state: orderState(order), now }
}

const orderState = (order: OnChainOrder): SourceRead['state'] =>
  order.status === ORDER_STATUS.claimed ? 'claimed' : order.status === ORDER_STATUS.refunded ? 'refunded' : 'open'

/** The lock's state alone: one account read, no clock or height. */
export async function readLockState(
  reads: SolanaReads,
  program: PublicKey,
  orderId: `0x${string}`,
): Promise<SourceRead['state']> {
  const order = await readOrderAccount(reads, program, orderId)
  return order ? orderState(order) : 'missing'
}

export type BaseFill = { filler: Address; timestamp: number; claimant: Hex }

/** OutputSettler.fillOf for exactly this output; filler is the zero address when none. */
export async function readBaseFill(
  client: PublicClient,
  settler: Address,
  q: { orderId: Hex; token: Address; amount: bigint; recipient: Address },
): Promise<BaseFill> {
  const r = (await client.readContract({
    address: settler,
    abi: OutputSettler.abi,
    functionName: 'fillOf',
    args: [q.orderId, q.token, q.amount, q.recipient],
  })) as { filler: Address; timestamp: bigint; claimant: Hex }
  return { filler: r.filler, timestamp: Number(r.timestamp), claimant: r.claimant }
}

/** A bytes32 party holding an EVM address (12 zero bytes, then the address). */
export function partyAddress(party: Hex): Address | undefined {
  const h = party.toLowerCase()
  if (h.length !== 66 || !h.startsWith(`0x${'0'.repeat(24)}`)) return undefined
  return `0x${h.slice(26)}` as Address
}
