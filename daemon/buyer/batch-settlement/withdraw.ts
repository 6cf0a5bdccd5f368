import { encodeFunctionData, type Hex, parseEventLogs } from 'viem'
import * as X402BatchSettlement from '../../../contracts/evm/artifacts/X402BatchSettlement.js'
import { BaseError } from '../../../src/errors/index.js'
import type { ChannelWithdraw } from '../../../src/sdk/platform/channels.js'
import { fromBaseUnits } from '../../../src/sdk/units.js'
import { BATCH_SETTLEMENT_ADDRESS, type ChannelConfig } from '../../../src/sdk/x402/evm/batch-settlement/contracts.js'
import type { EvmChain } from '../../chains/evm/chain.js'
import type { AgentRow } from '../../platform/store.js'
import { usdMicros } from '../limits.js'
import type { AgentCall } from '../send.js'
import { channelView, decimalsOf } from './refund.js'
import type { ChannelStore } from './store.js'

export type WithdrawContext = {
  chain: EvmChain
  channels: ChannelStore
  agent: AgentRow
  /**
   * One contract call from the agent's own address (send's machinery: the sponsored EIP-7702 account on AA networks).
   */
  call(to: Hex, data: Hex): Promise<AgentCall>
}

const abi = X402BatchSettlement.abi
const n = (s: string | null | undefined) => BigInt(s ?? '0')
const iso = (seconds: bigint) => new Date(Number(seconds) * 1000).toISOString()

/**
 * The payer's own way out of a channel whose seller does not refund (the contract's timed
 * withdrawal). The first call starts it: initiateWithdraw of everything the chain says is still
 * unclaimed (balance less totalClaimed: the contract's bound), recorded on the row so no voucher is
 * signed on the channel meanwhile. A call before the channel's withdraw delay has passed (chain
 * time) is CHANNEL_WITHDRAW_PENDING naming when; one after it finalizes: the contract returns the
 * amount asked less what the seller claimed during the delay (its vouchers stay claimable until
 * then), read from the WithdrawFinalized event, and that money stops counting against the limits as
 * a refund does. The state is read from the chain first, so a withdrawal started by a call whose
 * answer was lost is finalized, never started twice.
 */
export async function withdrawChannel(x: WithdrawContext, id: string): Promise<ChannelWithdraw> {
  const found = await x.channels.get(id)
  if (!found || found.agent_id !== x.agent.id) throw new BaseError('NOT_FOUND', `no channel ${id} for this agent`)
  const dec = decimalsOf(x.chain, found.token)
  const u = (v: bigint) => fromBaseUnits(v, dec)
  // Held against pays on the channel: a voucher must not be signed while the withdrawal starts.
  const lease = await x.channels.lease(id, 120_000, 30_000)
  try {
    const row = (await x.channels.get(id))!
    const config = JSON.parse(row.config) as ChannelConfig
    const args = configArgs(config)
    const [pendingAmount, initiatedAt] = (await read(x, 'pendingWithdrawals', id)) as readonly [bigint, number]
    if (initiatedAt === 0) {
      const [balance, claimed] = (await read(x, 'channels', id)) as readonly [bigint, bigint]
      const available = balance - claimed
      if (available <= 0n)
        throw new BaseError(
          'NOTHING_TO_WITHDRAW',
          `channel ${id} holds nothing unclaimed (balance ${u(balance)}, ` +
            `claimed ${u(claimed)} ${row.token}); nothing was sent`,
        )
      const sent = await x.call(
        BATCH_SETTLEMENT_ADDRESS,
        encodeFunctionData({ abi, functionName: 'initiateWithdraw', args: [args, available] }),
      )
      const ev = parseEventLogs({ abi, logs: sent.logs, eventName: 'WithdrawInitiated' }).find(
        (l) => l.args.channelId.toLowerCase() === id,
      )
      const finalizeAfter = ev
        ? BigInt(ev.args.finalizeAfter)
        : BigInt(Math.floor(Date.now() / 1000) + config.withdrawDelay)
      await x.channels.update(id, {
        withdraw_amount: available.toString(),
        withdraw_requested_at: Date.now(),
        withdraw_finalizable_at: Number(finalizeAfter) * 1000,
      })
      return {
        state: 'initiated',
        amount: u(available),
        withdrawn: '0',
        token: row.token,
        finalizableAt: iso(finalizeAfter),
        transaction: sent.transaction,
        userOperation: sent.userOperation,
        channel: channelView((await x.channels.get(id))!, dec),
      }
    }
    const finalizeAfter = BigInt(initiatedAt) + BigInt(config.withdrawDelay)
    // A withdrawal on chain the row does not know (a lost answer): recorded now, so pays stop.
    if (row.withdraw_requested_at == null) {
      await x.channels.update(id, {
        withdraw_amount: pendingAmount.toString(),
        withdraw_requested_at: initiatedAt * 1000,
        withdraw_finalizable_at: Number(finalizeAfter) * 1000,
      })
    }
    const now = await chainTime(x)
    if (now < finalizeAfter) {
      throw new BaseError(
        'CHANNEL_WITHDRAW_PENDING',
        `the withdrawal of ${u(pendingAmount)} ${row.token} from channel ${id} can be ` +
          `finalized from ${iso(finalizeAfter)} (the channel's ${config.withdrawDelay} ` +
          `s delay, chain time; ${finalizeAfter - now} s left); call withdraw again then`,
        {
          fields: { finalizableAt: iso(finalizeAfter), amount: u(pendingAmount) },
        },
      )
    }
    const sent = await x.call(
      BATCH_SETTLEMENT_ADDRESS,
      encodeFunctionData({ abi, functionName: 'finalizeWithdraw', args: [args] }),
    )
    const ev = parseEventLogs({ abi, logs: sent.logs, eventName: 'WithdrawFinalized' }).find(
      (l) => l.args.channelId.toLowerCase() === id,
    )
    const back = ev ? BigInt(ev.args.amount) : 0n
    const withdrawn = u(back)
    const what = `withdrew ${withdrawn} ${row.token} in ${sent.transaction}`
    // Out of the escrow first (never below zero): the rest, if any, is charges the seller never claimed in time.
    if (back > 0n) await x.channels.refundEscrow(id, usdMicros(withdrawn, dec), withdrawn, what)
    await x.channels.update(id, {
      withdrawn: (n(row.withdrawn) + back).toString(),
      withdraw_amount: null,
      withdraw_requested_at: null,
      withdraw_finalizable_at: null,
    })
    return {
      state: 'finalized',
      amount: u(pendingAmount),
      withdrawn,
      token: row.token,
      finalizableAt: iso(finalizeAfter),
      transaction: sent.transaction,
      userOperation: sent.userOperation,
      channel: channelView((await x.channels.get(id))!, dec),
    }
  } finally {
    await lease.release().catch(() => {})
  }
}

function configArgs(c: ChannelConfig) {
  return { ...c, withdrawDelay: Number(c.withdrawDelay), salt: c.salt as Hex }
}

async function read(
  x: WithdrawContext,
  functionName: 'channels' | 'pendingWithdrawals',
  id: string,
): Promise<readonly unknown[]> {
  try {
    return (await x.chain.client.readContract({
      address: BATCH_SETTLEMENT_ADDRESS,
      abi,
      functionName,
      args: [id as Hex],
    })) as readonly unknown[]
  } catch (e) {
    throw new BaseError(
      'CHAIN_UNAVAILABLE',
      `${x.chain.key} did not answer reading channel ${id}; nothing was sent, retry shortly`,
      { cause: e },
    )
  }
}

/** The latest block's time: the contract's clock, which the delay is measured on. */
async function chainTime(x: WithdrawContext): Promise<bigint> {
  try {
    return (await x.chain.client.getBlock({ blockTag: 'latest' })).timestamp
  } catch (e) {
    throw new BaseError('CHAIN_UNAVAILABLE', `${x.chain.key} did not answer; nothing was sent, retry shortly`, {
      cause: e,
    })
  }
}
