import type { Hex } from 'viem'
import { type ChannelConfig, channelIdOf } from './contracts.js'

const MAX = 10_000
const ids = new Map<string, Hex>()

/**
 * channelIdOf, remembered: a channel's config is hashed on every voucher (twice: the payload's
 * binding and the local check), ~0.6 ms of CPU each here, while a buyer sends the same config for
 * the channel's whole life. Bounded; the oldest entry goes first.
 */
export function channelIdMemo(config: ChannelConfig, chainId: number): Hex {
  const { payer, payerAuthorizer, receiver, receiverAuthorizer, token, withdrawDelay, salt } = config
  const key = [chainId, payer, payerAuthorizer, receiver, receiverAuthorizer, token, withdrawDelay, salt]
    .join('|')
    .toLowerCase()
  let id = ids.get(key)
  if (!id) {
    id = channelIdOf(config, chainId)
    if (ids.size >= MAX) ids.delete(ids.keys().next().value!)
    ids.set(key, id)
  }
  return id
}
