import { type Address, erc20Abi } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPlatformClient, type PlatformClient } from '../src/sdk/platform/client.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'

/** swap over HTTP against a real daemon: signed by the agent's wallet, relayed by our swap service; gasless, counted toward limits. */
let d: TestDaemon
let user: PlatformClient

beforeAll(async () => {
  d = await startTestDaemon()
  const op = createPlatformClient({ url: d.urls.platform, operatorToken: d.services.keys.operatorToken })
  const { userKey } = await op.createUser({ body: { name: 'swapper' } })
  user = createPlatformClient({ url: d.urls.platform, userKey })
}, 120_000)
afterAll(async () => d?.close())

const bal = (owner: Address, symbol: string) => {
  const chain = d.services.base
  return chain.client.readContract({
    address: chain.tokens[symbol]!.address,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [owner],
  })
}
const post = (path: string, body: unknown, headers: Record<string, string>) =>
  d.raw(path, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })

describe('swap', () => {
  it('USDC -> PUSD -> XUSD -> PUSD, exact, and the wallet holds 0 ETH throughout', async () => {
    const a = await user.createAgent({ body: { name: 'swapper', network: 'local-base' } })
    await d.call('/api/local/faucet', { body: { network: 'local-base', to: a.wallet, token: 'USDC', amount: '10' } })
    const { agentKey } = await user.createAgentKey({ params: { id: a.id }, body: {} })
    const agent = createPlatformClient({ url: d.urls.platform, agentKey })
    const units = (symbol: string, n: bigint) => n * 10n ** BigInt(d.services.base.tokens[symbol]!.decimals)
    const r1 = await agent.swap({ params: { id: a.id }, body: { from: 'USDC', to: 'PUSD', amount: '4' } })
    expect(r1).toMatchObject({
      agentId: a.id,
      network: 'local-base',
      from: { token: 'USDC', amount: '4' },
      to: { token: 'PUSD', amount: '4' },
      status: 'included',
    })
    expect(await bal(a.wallet, 'USDC')).toBe(units('USDC', 6n))
    expect(await bal(a.wallet, 'PUSD')).toBe(units('PUSD', 4n))
    await agent.swap({ params: { id: a.id }, body: { from: 'PUSD', to: 'XUSD', amount: '3' } })
    expect(await bal(a.wallet, 'PUSD')).toBe(units('PUSD', 1n))
    expect(await bal(a.wallet, 'XUSD')).toBe(units('XUSD', 3n))
    await agent.swap({ params: { id: a.id }, body: { from: 'xusd', to: 'pusd', amount: '2' } })
    expect(await bal(a.wallet, 'PUSD')).toBe(units('PUSD', 3n))
    expect(await bal(a.wallet, 'XUSD')).toBe(units('XUSD', 1n))
    expect(await d.services.base.client.getBalance({ address: a.wallet })).toBe(0n)
    expect((await agent.getLimits({ params: { id: a.id } })).spentTodayUsd).toBe('9')
  }, 120_000)

  it('refuses other networks, pairs and amounts over the limit before signing', async () => {
    const radius = await user.createAgent({ body: { name: 'r', network: 'local-radius' } })
    const base = await user.createAgent({ body: { name: 'b', network: 'local-base' } })
    await d.call('/api/local/faucet', { body: { network: 'local-base', to: base.wallet, token: 'USDC', amount: '5' } })
    await user.setLimits({ params: { id: base.id }, body: { perPaymentUsd: '2' } })
    const { agentKey: rk } = await user.createAgentKey({ params: { id: radius.id }, body: {} })
    const { agentKey: bk } = await user.createAgentKey({ params: { id: base.id }, body: {} })
    const r = await post(
      `/api/agents/${radius.id}/swap`,
      { from: 'USDC', to: 'PUSD', amount: '1' },
      { 'x-agent-key': rk },
    )
    expect([r.status, r.body.code]).toEqual([400, 'NETWORK_UNSUPPORTED'])
    const pair = await post(
      `/api/agents/${base.id}/swap`,
      { from: 'USDC', to: 'XUSD', amount: '1' },
      { 'x-agent-key': bk },
    )
    expect(pair.body.code).toBe('UNSUPPORTED_PAIR')
    const over = await post(
      `/api/agents/${base.id}/swap`,
      { from: 'USDC', to: 'PUSD', amount: '3' },
      { 'x-agent-key': bk },
    )
    expect(over.body).toMatchObject({ code: 'LIMIT_EXCEEDED', limit: 'perPayment', limitUsd: '2', amountUsd: '3' })
    const short = await post(
      `/api/agents/${base.id}/swap`,
      { from: 'PUSD', to: 'XUSD', amount: '1' },
      { 'x-agent-key': bk },
    )
    expect(short.body.code).toBe('INSUFFICIENT_BALANCE')
    expect(await bal(base.wallet, 'USDC')).toBe(5_000_000n)
    expect((await user.getLimits({ params: { id: base.id } })).spentTodayUsd).toBe('0')
  }, 60_000)

  it('payee and network rules (issue 41 item 2): a denied output token or network is refused before signing; allowed ones swap', async () => {
    const a = await user.createAgent({ body: { name: 'ruled', network: 'local-base' } })
    await d.call('/api/local/faucet', { body: { network: 'local-base', to: a.wallet, token: 'USDC', amount: '5' } })
    const { agentKey } = await user.createAgentKey({ params: { id: a.id }, body: {} })
    const swap = () =>
      post(`/api/agents/${a.id}/swap`, { from: 'USDC', to: 'PUSD', amount: '1' }, { 'x-agent-key': agentKey })
    await user.setAgentPolicy({ params: { id: a.id }, body: { denyTokens: ['PUSD'] } })
    expect((await swap()).body).toMatchObject({
      code: 'LIMIT_EXCEEDED',
      rule: 'denyTokens',
      scope: 'agent',
      value: 'PUSD',
    })
    await user.setAgentPolicy({ params: { id: a.id }, body: { clear: true, allowNetworks: ['local-radius'] } })
    expect((await swap()).body).toMatchObject({ code: 'LIMIT_EXCEEDED', rule: 'allowNetworks', value: 'local-base' })
    expect(await bal(a.wallet, 'USDC')).toBe(5_000_000n)
    expect((await user.listPayments({ params: { id: a.id } })).payments).toHaveLength(0)
    await user.setAgentPolicy({
      params: { id: a.id },
      body: { allowNetworks: ['local-base'], allowTokens: ['USDC', 'PUSD'] },
    })
    expect((await swap()).status).toBe(200)
    expect(await bal(a.wallet, 'USDC')).toBe(4_000_000n)
  }, 60_000)

  it('budgets per window (issue 41 item 1): a swap fills a window exactly; the next is refused by that window, agent or user', async () => {
    const a = await user.createAgent({ body: { name: 'windows', network: 'local-base' } })
    await d.call('/api/local/faucet', { body: { network: 'local-base', to: a.wallet, token: 'USDC', amount: '5' } })
    const { agentKey } = await user.createAgentKey({ params: { id: a.id }, body: {} })
    await user.setLimits({ params: { id: a.id }, body: { hourlyUsd: '1' } })
    expect(
      (await post(`/api/agents/${a.id}/swap`, { from: 'USDC', to: 'PUSD', amount: '1' }, { 'x-agent-key': agentKey }))
        .status,
    ).toBe(200)
    // The one swap counts in every window: each, set to exactly what was spent, refuses one micro-dollar more.
    let previous: string = 'hourlyUsd'
    for (const [w, field] of [
      ['hour', 'hourlyUsd'],
      ['day', 'dailyUsd'],
      ['week', 'weeklyUsd'],
      ['month', 'monthlyUsd'],
    ] as const) {
      await user.setLimits({ params: { id: a.id }, body: { [previous]: null, [field]: '1' } })
      previous = field
      const r = await post(
        `/api/agents/${a.id}/swap`,
        { from: 'USDC', to: 'PUSD', amount: '0.000001' },
        { 'x-agent-key': agentKey },
      )
      expect([r.status, r.body], w).toMatchObject([
        403,
        { code: 'LIMIT_EXCEEDED', limit: w, scope: 'agent', limitUsd: '1', amountUsd: '0.000001', remainingUsd: '0' },
      ])
    }
    await user.setLimits({ params: { id: a.id }, body: { monthlyUsd: null } })
    const all = await user.getLimits({ params: { id: a.id } })
    await user.setUserLimits({ body: { dailyUsd: all.user.windows.day.spentUsd } })
    try {
      const r = await post(
        `/api/agents/${a.id}/swap`,
        { from: 'USDC', to: 'PUSD', amount: '0.000001' },
        { 'x-agent-key': agentKey },
      )
      expect([r.status, r.body]).toMatchObject([
        403,
        { code: 'LIMIT_EXCEEDED', limit: 'day', scope: 'user', remainingUsd: '0' },
      ])
    } finally {
      await user.setUserLimits({ body: { dailyUsd: null } })
    }
    expect(await bal(a.wallet, 'USDC')).toBe(4_000_000n)
  }, 120_000)

  it("budgets per window (issue 41 item 1): each of the user's windows, across its agents, swaps exactly up to its edge", async () => {
    const op = createPlatformClient({ url: d.urls.platform, operatorToken: d.services.keys.operatorToken })
    for (const [w, field] of [
      ['hour', 'hourlyUsd'],
      ['day', 'dailyUsd'],
      ['week', 'weeklyUsd'],
      ['month', 'monthlyUsd'],
    ] as const) {
      const owner = createPlatformClient({
        url: d.urls.platform,
        userKey: (await op.createUser({ body: { name: `swap-${w}` } })).userKey,
      })
      await owner.setUserLimits({ body: { [field]: '1.5' } })
      const [one, two] = await Promise.all(
        ['one', 'two'].map(async (name) => {
          const a = await owner.createAgent({ body: { name, network: 'local-base' } })
          await d.call('/api/local/faucet', {
            body: { network: 'local-base', to: a.wallet, token: 'USDC', amount: '2' },
          })
          return { a, agentKey: (await owner.createAgentKey({ params: { id: a.id }, body: {} })).agentKey }
        }),
      )
      expect(
        (
          await post(
            `/api/agents/${one!.a.id}/swap`,
            { from: 'USDC', to: 'PUSD', amount: '1' },
            { 'x-agent-key': one!.agentKey },
          )
        ).status,
        w,
      ).toBe(200)
      expect(
        (
          await post(
            `/api/agents/${two!.a.id}/swap`,
            { from: 'USDC', to: 'PUSD', amount: '0.5' },
            { 'x-agent-key': two!.agentKey },
          )
        ).status,
        w,
      ).toBe(200)
      const r = await post(
        `/api/agents/${two!.a.id}/swap`,
        { from: 'USDC', to: 'PUSD', amount: '0.000001' },
        { 'x-agent-key': two!.agentKey },
      )
      expect([r.status, r.body], w).toMatchObject([
        403,
        { code: 'LIMIT_EXCEEDED', limit: w, scope: 'user', limitUsd: '1.5', amountUsd: '0.000001', remainingUsd: '0' },
      ])
      expect(await bal(two!.a.wallet as Address, 'USDC'), w).toBe(1_500_000n)
    }
  }, 180_000)

  it('an agent whose wallet already delegates to Simple7702Account (after a user-operation send) still swaps', async () => {
    const a = await user.createAgent({ body: { name: 'delegated', network: 'local-base' } })
    await d.call('/api/local/faucet', { body: { network: 'local-base', to: a.wallet, token: 'USDC', amount: '5' } })
    await user.send({
      params: { id: a.id },
      body: { to: '0x4ac8ee94a7435b4fbbd62f70c95f66537822ae3a', amount: '1', token: 'USDC' },
    })
    expect((await d.services.base.client.getCode({ address: a.wallet }))?.startsWith('0xef0100')).toBe(true)
    await user.swap({ params: { id: a.id }, body: { from: 'USDC', to: 'PUSD', amount: '2' } })
    expect(await bal(a.wallet, 'USDC')).toBe(2_000_000n)
    expect(await bal(a.wallet, 'PUSD')).toBe(2n * 10n ** BigInt(d.services.base.tokens.PUSD!.decimals))
    expect(await d.services.base.client.getBalance({ address: a.wallet })).toBe(0n)
  }, 120_000)
})
