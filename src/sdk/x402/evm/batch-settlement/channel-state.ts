import type { Hex, PublicClient } from 'viem'
import { BATCH_SETTLEMENT_ADDRESS } from './contracts.js'

/** The settlement contract's `channels(bytes32)` view, alone: a buyer reads nothing else of it. */
const channelsAbi = [
  {
    type: 'function',
    name: 'channels',
    stateMutability: 'view',
    inputs: [{ name: 'channelId', type: 'bytes32' }],
    outputs: [
      { name: 'balance', type: 'uint128' },
      { name: 'totalClaimed', type: 'uint128' },
    ],
  },
] as const

/**
 * A channel as the chain holds it: `balance` is what was deposited less what was withdrawn or
 * refunded (claims stay in it), `totalClaimed` what the receiver took. A voucher for a cumulative
 * above `balance` can never be claimed, so a buyer deposits from this, never from a seller's report.
 *
 * @example
 * const { balance, totalClaimed } = await readChannelState(publicClient, channelId)
 */
export async function readChannelState(
  client: Pick<PublicClient, 'readContract'>,
  channelId: Hex,
): Promise<{ balance: bigint; totalClaimed: bigint }> {
  const [balance, totalClaimed] = await client.readContract({
    address: BATCH_SETTLEMENT_ADDRESS,
    abi: channelsAbi,
    functionName: 'channels',
    args: [channelId],
  })
  return { balance, totalClaimed }
}
