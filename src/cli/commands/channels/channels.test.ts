import { describe, expect, it } from 'vitest'
import type { Channel } from '../../../sdk/platform/channels.js'
import { AGENT_ID, AGENT_KEY, fakeDeps } from '../fake-platform.js'
import * as list from './list.js'
import * as refund from './refund.js'
import * as withdraw from './withdraw.js'

const CH = `0x${'ab'.repeat(32)}`
const TX = `0x${'cd'.repeat(32)}`
const channel: Channel = {
  id: CH,
  network: 'local-base',
  token: 'USDC',
  receiver: '0x4444444444444444444444444444444444444444',
  receiverAuthorizer: '0x5555555555555555555555555555555555555555',
  host: 'seller.test',
  url: 'http://seller.test/report',
  deposited: '0.01',
  charged: '0.006',
  signed: '0.006',
  refunded: '0',
  unspent: '0.004',
  withdrawn: '0',
  withdrawal: null,
  pendingDeposit: null,
  withdrawDelaySeconds: 900,
  createdAt: '2026-11-27T00:00:00.000Z',
  updatedAt: '2026-11-27T00:00:00.000Z',
}

/** The agent's deps with the two channel routes answered here, recording what they were asked. */
function deps() {
  const d = fakeDeps({ agentKey: AGENT_KEY, agentId: AGENT_ID }, { output: 'text' })
  const asked: unknown[] = []
  Object.assign(d.platform, {
    listChannels: async (i: unknown) => (asked.push(i), { channels: [channel] }),
    withdrawChannel: async (i: unknown) => (
      asked.push(i),
      {
        state: 'initiated',
        amount: '0.01',
        withdrawn: '0',
        token: 'USDC',
        finalizableAt: '2026-11-27T00:15:00.000Z',
        transaction: TX,
        userOperation: null,
        channel: {
          ...channel,
          withdrawal: {
            amount: '0.01',
            requestedAt: '2026-11-27T00:00:00.000Z',
            finalizableAt: '2026-11-27T00:15:00.000Z',
          },
        },
      }
    ),
    refundChannel: async (i: unknown) => (
      asked.push(i),
      {
        refunded: '0.004',
        token: 'USDC',
        transaction: `0x${'cd'.repeat(32)}`,
        channel: { ...channel, refunded: '0.004', unspent: '0' },
      }
    ),
  })
  return { d, asked }
}

describe('parx channels', () => {
  it('list asks for the logged-in agent and prints one line per channel', async () => {
    const { d, asked } = deps()
    const r = await list.run({}, d)
    expect(asked).toEqual([{ params: { id: AGENT_ID } }])
    expect(list.human(r.data, d.ctx)[0]).toContain(
      `${CH}  seller.test  local-base  deposited 0.01 USDC, charged 0.006, refunded 0, unspent 0.004`,
    )
  })

  it('refund checks the channel id before any call, and says what came back', async () => {
    const { d, asked } = deps()
    await expect(refund.run({ channel: '0x1234' }, d)).rejects.toMatchObject({ code: 'USAGE' })
    expect(asked).toEqual([])
    const r = await refund.run({ channel: CH.toUpperCase().replace('0X', '0x') }, d)
    expect(asked).toEqual([{ params: { id: AGENT_ID, channelId: CH } }])
    expect(refund.human(r.data)[0]).toMatch(/^Refunded 0\.004 USDC from channel 0xab.*; unspent now 0 USDC\.$/)
  })

  it('withdraw checks the channel id before any call; list shows the withdrawal under way', async () => {
    const { d, asked } = deps()
    await expect(withdraw.run({ channel: 'nope' }, d)).rejects.toMatchObject({ code: 'USAGE' })
    expect(asked).toEqual([])
    const r = await withdraw.run({ channel: CH }, d)
    expect(asked).toEqual([{ params: { id: AGENT_ID, channelId: CH } }])
    expect(withdraw.human(r.data)[0]).toBe(
      `Started the withdrawal of 0.01 USDC from channel ${CH} (transaction ${TX}); run parx channels withdraw ${CH} again from 2026-11-27T00:15:00.000Z to finalize it.`,
    )
    expect(list.human({ channels: [r.data.channel] }, d.ctx)[0]).toContain(
      'unspent 0.004  withdrawing 0.01, finalizable from 2026-11-27T00:15:00.000Z',
    )
  })
})
