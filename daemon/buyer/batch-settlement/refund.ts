import type { Hex } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'
import * as X402BatchSettlement from '../../../contracts/evm/artifacts/X402BatchSettlement.js'
import { BaseError } from '../../../src/errors/index.js'
import { networks } from '../../../src/networks/registry.js'
import type { Channel, ChannelRefund } from '../../../src/sdk/platform/channels.js'
import { sendableTokens } from '../../../src/sdk/platform/networks.js'
import { fromBaseUnits } from '../../../src/sdk/units.js'
import { BATCH_SETTLEMENT_ADDRESS, type ChannelConfig } from '../../../src/sdk/x402/evm/batch-settlement/contracts.js'
import { signVoucher } from '../../../src/sdk/x402/evm/batch-settlement/sign.js'
import type { PaymentRequired, SettleResponse } from '../../../src/sdk/x402/types.js'
import { decodeHeader, encodeHeader, headers as x402Headers } from '../../../src/sdk/x402/wire.js'
import type { EvmChain } from '../../chains/evm/chain.js'
import type { AgentRow } from '../../platform/store.js'
import { usdMicros } from '../limits.js'
import type { SpendsLedger } from '../spends.js'
import { CHANNEL_DEFAULTS, resync } from './pay.js'
import type { ChannelRow, ChannelStore } from './store.js'
import { channelTerms } from './terms.js'

export type RefundContext = {
  chain: EvmChain
  spends: SpendsLedger
  channels: ChannelStore
  agent: AgentRow
  signer: PrivateKeyAccount
  timeoutMs: number
  /** One GET to the seller (the guarded egress fetch). */
  get(url: string, headers: Record<string, string>): Promise<Response>
}

const n = (s: string | null | undefined) => BigInt(s ?? '0')

/** The channel as its owner reads it (token units). */
export function channelView(row: ChannelRow, decimals: number): Channel {
  const u = (v: bigint) => fromBaseUnits(v, decimals)
  const unspent = n(row.deposited) - n(row.refunded) - n(row.withdrawn) - n(row.charged)
  const at = (ms: number | string) => new Date(Number(ms)).toISOString()
  const config = JSON.parse(row.config) as ChannelConfig
  return {
    id: row.id,
    network: row.network,
    token: row.token,
    receiver: row.receiver,
    receiverAuthorizer: row.receiver_authorizer,
    host: row.host,
    url: row.url,
    deposited: u(n(row.deposited)),
    charged: u(n(row.charged)),
    signed: u(n(row.signed)),
    refunded: u(n(row.refunded)),
    unspent: u(unspent > 0n ? unspent : 0n),
    withdrawn: u(n(row.withdrawn)),
    withdrawal:
      row.withdraw_requested_at == null
        ? null
        : {
            amount: u(n(row.withdraw_amount)),
            requestedAt: at(row.withdraw_requested_at),
            finalizableAt: at(row.withdraw_finalizable_at ?? 0),
          },
    pendingDeposit: row.pending_deposit ? u(n(row.pending_deposit)) : null,
    withdrawDelaySeconds: config.withdrawDelay,
    createdAt: new Date(Number(row.created_at)).toISOString(),
    updatedAt: new Date(Number(row.updated_at)).toISOString(),
  }
}

export function decimalsOf(chain: EvmChain, symbol: string): number {
  return chain.tokens[symbol]?.decimals ?? 6
}

/**
 * The cooperative refund, as the official client asks it (`refundChannel`): the seller's 402 at
 * the channel's resource is read for its batch-settlement offer (checked like any other: it must
 * name this very channel), then a `refund` payload with a voucher for what was charged is sent
 * there; a corrective 402 is resynced once. What came back is read from the chain (the channel's
 * balance before and after), never from the seller's word, and stops counting against the limits.
 * A seller that does not cooperate leaves the deposit in the channel: CHANNEL_REFUND_REFUSED says
 * so; the payer's own way out is withdrawChannel (./withdraw.ts).
 */
export async function refundChannel(x: RefundContext, id: string): Promise<ChannelRefund> {
  const found = await x.channels.get(id)
  if (!found || found.agent_id !== x.agent.id) throw new BaseError('NOT_FOUND', `no channel ${id} for this agent`)
  const dec = decimalsOf(x.chain, found.token)
  const lease = await x.channels.lease(id, 2 * x.timeoutMs + 10_000, x.timeoutMs)
  try {
    let row = (await x.channels.get(id))!
    const refusedBy = (why: string): never => {
      throw new BaseError(
        'CHANNEL_REFUND_REFUSED',
        `${why}; nothing moved: the unspent ${channelView(row, dec).unspent} ${row.token} stays ` +
          `in channel ${id} (parx channels withdraw starts the on-chain withdrawal; a second call ` +
          `finalizes it after the channel's ${channelView(row, dec).withdrawDelaySeconds} s delay)`,
      )
    }
    const probe = await x.get(row.url, {})
    const required =
      probe.status === 402 ? decodeHeader<PaymentRequired>(probe.headers.get(x402Headers.required)) : undefined
    await probe.body?.cancel().catch(() => {})
    if (!required || !Array.isArray(required.accepts))
      refusedBy(`${row.url} answered ${probe.status} without x402 terms`)
    const tokens = sendableTokens(networks[x.agent.network]!).flatMap((t) =>
      x.chain.tokens[t.symbol] ? [x.chain.tokens[t.symbol]!] : [],
    )
    const terms = await channelTerms(x.chain, tokens, x.signer.address, required!.accepts)
    if (!terms || terms.channelId !== id)
      refusedBy(`the seller at ${row.url} no longer offers batch-settlement for this channel`)
    const before = await balanceOf(x.chain, id as Hex)
    let settle: SettleResponse | undefined
    for (let attempt = 0; attempt < 2 && !settle; attempt++) {
      const voucher = await signVoucher(x.signer, x.chain.chainId, id as Hex, n(row.charged))
      const message = {
        x402Version: 2,
        accepted: terms!.requirement,
        payload: { type: 'refund', channelConfig: terms!.config, voucher },
        ...(required!.resource ? { resource: required!.resource } : {}),
      }
      const res = await x.get(row.url, { [x402Headers.signature]: encodeHeader(message) })
      const s = decodeHeader<SettleResponse>(res.headers.get(x402Headers.response))
      const again =
        res.status === 402 ? decodeHeader<PaymentRequired>(res.headers.get(x402Headers.required)) : undefined
      await res.body?.cancel().catch(() => {})
      if (s?.success) {
        settle = s
      } else if (again && attempt === 0 && typeof again.error === 'string' && again.error.includes('cumulative')) {
        row = await resync(
          {
            chain: x.chain,
            spends: x.spends,
            channels: x.channels,
            settings: CHANNEL_DEFAULTS,
            agent: x.agent,
            signer: x.signer,
            url: row.url,
            host: row.host,
            terms: terms!,
            resource: undefined,
            validSeconds: 60,
            timeoutMs: x.timeoutMs,
            send: () => Promise.reject(new BaseError('INTERNAL', 'unused')),
          },
          row,
          again,
        )
      } else {
        refusedBy(`the seller refused the refund (${s?.errorReason ?? again?.error ?? `status ${res.status}`})`)
      }
    }
    const after = await balanceOf(x.chain, id as Hex)
    const back = before > after ? before - after : 0n
    const refunded = fromBaseUnits(back, dec)
    if (back > 0n)
      await x.channels.refundEscrow(
        id,
        usdMicros(refunded, dec),
        refunded,
        `refunded ${refunded} ${row.token}${settle!.transaction ? ` in ${settle!.transaction}` : ''}`,
      )
    await x.channels.update(id, { refunded: (n(row.refunded) + back).toString() })
    return {
      refunded,
      token: row.token,
      transaction: settle!.transaction || null,
      channel: channelView((await x.channels.get(id))!, dec),
    }
  } finally {
    await lease.release().catch(() => {})
  }
}

async function balanceOf(chain: EvmChain, id: Hex): Promise<bigint> {
  try {
    const [balance] = (await chain.client.readContract({
      address: BATCH_SETTLEMENT_ADDRESS,
      abi: X402BatchSettlement.abi,
      functionName: 'channels',
      args: [id],
    })) as readonly [bigint, bigint]
    return balance
  } catch (e) {
    throw new BaseError('CHAIN_UNAVAILABLE', `${chain.key} did not answer reading channel ${id}; retry shortly`, {
      cause: e,
    })
  }
}
