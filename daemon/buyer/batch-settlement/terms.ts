import type { Address, Hex } from 'viem'
import { BaseError } from '../../../src/errors/index.js'
import { fromBaseUnits, toBaseUnits } from '../../../src/sdk/units.js'
import {
  BATCH_SETTLEMENT,
  BATCH_SETTLEMENT_ADDRESS,
  type ChannelConfig,
  channelIdOf,
} from '../../../src/sdk/x402/evm/batch-settlement/contracts.js'
import { channelConfigFor } from '../../../src/sdk/x402/evm/batch-settlement/terms.js'
import type { PaymentRequirements } from '../../../src/sdk/x402/types.js'
import { isRecord } from '../../../src/sdk/x402/wire.js'
import type { EvmChain, EvmToken } from '../../chains/evm/chain.js'
import { sameAddress } from '../pay/quote.js'

/** A seller's batch-settlement offer the platform will pay through: the requirement as sent, and our channel for it. */
export type ChannelTerms = {
  requirement: PaymentRequirements
  token: EvmToken
  price: bigint
  config: ChannelConfig
  channelId: Hex
  minDeposit?: bigint
}

/** The platform's own bounds on a seller's channel terms (config `pay.channels`). */
export type DepositBounds = { maxWithdrawDelay: number; depositCap: string }

/**
 * Where the settlement contract is present, by chain: a network without it is not one the scheme's canonical contract
 * serves.
 */
const hasContract = new WeakMap<EvmChain, Promise<boolean>>()

/**
 * The first batch-settlement offer on the agent's network and in one of its tokens, checked, or
 * undefined when there is none. A seller's offer decides where the agent's deposit goes, so every
 * part that could send it elsewhere is checked against what the scheme fixes, and a mismatch is
 * refused (CHANNEL_TERMS_REFUSED) rather than skipped: a contract or verifying address other than
 * the canonical one, a network where that contract does not live, a token domain other than the
 * token's own (the deposit authorization would be signed for another contract), no or a zero
 * receiver authorizer, a withdraw delay outside the contract's bounds, a transfer method we do not sign.
 * With `bounds` (a new pay; a refund of an existing channel takes it as it is), also a withdraw
 * delay or a minDeposit above the platform's own (config `pay.channels`): a hostile seller must not
 * lock more of the agent's money, or for longer, than the operator allows.
 */
export async function channelTerms(
  chain: EvmChain,
  tokens: EvmToken[],
  payer: Address,
  accepts: PaymentRequirements[],
  bounds?: DepositBounds,
): Promise<ChannelTerms | undefined> {
  // Only tokens the platform deposits by ERC-3009 (USDC); an offer in another token is left for the seller's other
  // offers.
  const payable = tokens.filter((t) => t.eip3009 && t.permitDomain)
  const r = accepts.find(
    (a) =>
      a.scheme === BATCH_SETTLEMENT &&
      a.network === chain.spec.caip2 &&
      payable.some((t) => sameAddress(t.address, a.asset)),
  )
  if (!r) return undefined
  const token = payable.find((t) => sameAddress(t.address, r.asset))!
  const refuse = (why: string): never => {
    throw new BaseError('CHANNEL_TERMS_REFUSED', `the seller's batch-settlement offer ${why}; nothing was paid`)
  }
  const terms = channelConfigFor(r, payer)
  if ('refused' in terms) return refuse(terms.refused)
  const { price, minDeposit } = terms
  // The token as the registry spells it: stored with the channel and shown by `parx channels`.
  const config = { ...terms.config, token: token.address }
  if (!(await contractPresent(chain)))
    refuse(
      `is on ${chain.key} (${chain.spec.caip2}), where the batch-settlement ` +
        `contract is not deployed at ${BATCH_SETTLEMENT_ADDRESS}`,
    )
  const extra = isRecord(r.extra) ? r.extra : {}
  if (extra.name !== token.permitDomain!.name || extra.version !== token.permitDomain!.version) {
    refuse(
      `names the token domain ${String(extra.name)} ${String(extra.version)}, not ` +
        `${token.symbol}'s own (${token.permitDomain!.name} ${token.permitDomain!.version})`,
    )
  }
  if (bounds && config.withdrawDelay > bounds.maxWithdrawDelay) {
    refuse(
      `has a withdrawDelay of ${config.withdrawDelay} s, above the ` +
        `platform's ${bounds.maxWithdrawDelay} s (pay.channels.maxWithdrawDelay)`,
    )
  }
  if (bounds && minDeposit !== undefined && minDeposit > toBaseUnits(bounds.depositCap, token.decimals)) {
    refuse(
      `asks a minDeposit of ${fromBaseUnits(minDeposit, token.decimals)} ${token.symbol}, above ` +
        `the platform's channel deposit cap of ${bounds.depositCap} (pay.channels.depositCap)`,
    )
  }
  return {
    requirement: r,
    token,
    price,
    config,
    channelId: channelIdOf(config, chain.chainId).toLowerCase() as Hex,
    ...(minDeposit ? { minDeposit } : {}),
  }
}

function contractPresent(chain: EvmChain): Promise<boolean> {
  let p = hasContract.get(chain)
  if (!p) {
    p = chain.client.getCode({ address: BATCH_SETTLEMENT_ADDRESS }).then((code) => code !== undefined && code !== '0x')
    // A chain that did not answer is asked again next time, not remembered as lacking the contract.
    p.catch(() => hasContract.delete(chain))
    hasContract.set(chain, p)
  }
  return p.catch(() => {
    throw new BaseError('CHAIN_UNAVAILABLE', `${chain.key} did not answer; nothing was paid`)
  })
}

/**
 * How much to deposit: the seller's `minDeposit` or `multiplier` x the price (at least what this
 * request needs), never above `cap` (base units) nor above what the day still allows (`room`).
 * CHANNEL_TERMS_REFUSED when even what this request needs is above the cap.
 */
export function depositAmount(p: {
  needed: bigint
  price: bigint
  multiplier: number
  cap: bigint
  minDeposit?: bigint
  room: bigint | null
}): bigint {
  if (p.needed > p.cap) {
    throw new BaseError(
      'CHANNEL_TERMS_REFUSED',
      `the seller's batch-settlement offer needs a deposit of ${p.needed} base units, above the ` +
        `platform's channel deposit cap of ${p.cap} (pay.channels.depositCap); nothing was paid`,
    )
  }
  let want =
    p.minDeposit !== undefined && p.minDeposit > p.price * BigInt(p.multiplier)
      ? p.minDeposit
      : p.price * BigInt(p.multiplier)
  if (want > p.cap) want = p.cap
  if (p.room !== null && want > p.room) want = p.room
  return want < p.needed ? p.needed : want
}
