import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import pino from 'pino'
import { type Address, erc20Abi } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { recheckPendingSpends } from '../daemon/buyer/pending-spends.js'
import { createPlatformClient, type PlatformClient } from '../src/sdk/platform/client.js'
import { runParx } from './helpers/cli.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'

/**
 * balance and send over HTTP against a real daemon: a direct transfer on local-radius, a sponsored
 * user operation through alto and our paymaster on local-base (the wallet holds 0 ETH throughout),
 * limits checked before signing, including two sends racing one daily limit.
 */
let d: TestDaemon
let user: PlatformClient
let userKey: string

beforeAll(async () => {
  d = await startTestDaemon()
  const op = createPlatformClient({ url: d.urls.platform, operatorToken: d.services.keys.operatorToken })
  ;({ userKey } = await op.createUser({ body: { name: 'sender' } }))
  user = createPlatformClient({ url: d.urls.platform, userKey })
}, 120_000)
afterAll(async () => d?.close())

const fresh = () => privateKeyToAccount(generatePrivateKey()).address
const faucet = (network: string, to: string, amount: string, token = 'PUSD') =>
  d.call('/api/local/faucet', { body: { network, to, token, amount } })
const tokenBalance = (network: string, owner: Address, symbol = 'PUSD') => {
  const chain = d.services.evm[network]!
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

async function agentOn(network: string, funded: string) {
  const a = await user.createAgent({ body: { name: network, network } })
  if (funded !== '0') await faucet(network, a.wallet, funded)
  const { agentKey } = await user.createAgentKey({ params: { id: a.id }, body: {} })
  return { a, agentKey, client: createPlatformClient({ url: d.urls.platform, agentKey }) }
}

const p50 = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!

describe('send on local-radius: a direct transfer', () => {
  it('faucet, balance, send; balances exact; the fee coin is kept supplied', async () => {
    const { a, client } = await agentOn('local-radius', '10')
    const bal = await client.balance({ params: { id: a.id } })
    expect(bal.tokens).toEqual([{ symbol: 'PUSD', decimals: 6, amount: '10', raw: '10000000' }])
    const to = fresh()
    const sent = await client.send({ params: { id: a.id }, body: { to, amount: '1.5' } })
    expect(sent).toMatchObject({
      agentId: a.id,
      network: 'local-radius',
      method: 'transfer',
      token: 'PUSD',
      amount: '1.5',
      from: a.wallet,
      to,
      userOperation: null,
      status: 'confirmed',
    })
    expect(await tokenBalance('local-radius', a.wallet)).toBe(8_500_000n)
    expect(await tokenBalance('local-radius', to)).toBe(1_500_000n)
    expect((await client.getLimits({ params: { id: a.id } })).spentTodayUsd).toBe('1.5')
  })

  it('refuses bad amounts, tokens and addresses before anything moves', async () => {
    const { a, agentKey } = await agentOn('local-radius', '2')
    const h = { 'x-agent-key': agentKey }
    const path = `/api/agents/${a.id}/send`
    const to = fresh()
    const cases: [unknown, string][] = [
      [{ to, amount: '1.0000001' }, 'BAD_REQUEST'],
      [{ to, amount: '0' }, 'BAD_REQUEST'],
      [{ to, amount: 1 }, 'BAD_REQUEST'],
      [{ to, amount: '1', token: 'XUSD' }, 'UNKNOWN_TOKEN'],
      [{ to, amount: '1', token: 'DOGE' }, 'UNKNOWN_TOKEN'],
      [{ to: '0x1234', amount: '1' }, 'BAD_REQUEST'],
      [{ to: '0x0000000000000000000000000000000000000000', amount: '1' }, 'BAD_REQUEST'],
      [{ to, amount: '3' }, 'INSUFFICIENT_BALANCE'],
    ]
    for (const [body, code] of cases) {
      const r = await post(path, body, h)
      expect([r.status, r.body.code], JSON.stringify(body)).toEqual([400, code])
    }
    expect(await tokenBalance('local-radius', a.wallet)).toBe(2_000_000n)
    expect((await user.getLimits({ params: { id: a.id } })).spentTodayUsd).toBe('0')
  })
})

describe('send on local-base: a sponsored user operation', () => {
  it('the agent holds 0 ETH throughout; faucet, balance, send through alto; balances exact', async () => {
    const { a, client } = await agentOn('local-base', '10')
    const eth = () => d.services.base.client.getBalance({ address: a.wallet })
    expect(await eth()).toBe(0n)
    const bal = await client.balance({ params: { id: a.id } })
    expect(bal.native).toEqual({ symbol: 'ETH', amount: '0', raw: '0' })
    expect(bal.tokens.find((t) => t.symbol === 'PUSD')).toEqual({
      symbol: 'PUSD',
      decimals: 18,
      amount: '10',
      raw: (10n * 10n ** 18n).toString(),
    })
    const to = fresh()
    const sent = await client.send({ params: { id: a.id }, body: { to, amount: '2.5', token: 'pusd' } })
    expect(sent).toMatchObject({
      method: 'userOperation',
      token: 'PUSD',
      amount: '2.5',
      from: a.wallet,
      to,
      status: 'confirmed',
    })
    expect(sent.userOperation).toMatch(/^0x[0-9a-f]{64}$/)
    expect(await tokenBalance('local-base', a.wallet)).toBe(75n * 10n ** 17n)
    expect(await tokenBalance('local-base', to)).toBe(25n * 10n ** 17n)
    expect(await eth()).toBe(0n)
    // USDC too, and again (already delegated)
    await faucet('local-base', a.wallet, '3', 'USDC')
    await client.send({ params: { id: a.id }, body: { to, amount: '3', token: 'USDC' } })
    expect(await tokenBalance('local-base', to, 'USDC')).toBe(3_000_000n)
    expect(await eth()).toBe(0n)
  }, 120_000)
})

describe('a bundler that is down', () => {
  it('answers BUNDLER_UNAVAILABLE with nothing spent, then recovers on the next send', async () => {
    const { a, agentKey, client } = await agentOn('local-base', '5')
    const to = fresh()
    await client.send({ params: { id: a.id }, body: { to, amount: '1' } })
    const aa = d.services.platform.aa['local-base']!
    await (await aa.stack()).alto.stop()
    const r = await post(`/api/agents/${a.id}/send`, { to, amount: '1' }, { 'x-agent-key': agentKey })
    expect([r.status, r.body.code]).toEqual([503, 'BUNDLER_UNAVAILABLE'])
    expect(r.body.error).toMatch(/nothing was spent/)
    expect(await tokenBalance('local-base', a.wallet)).toBe(4n * 10n ** 18n)
    expect((await client.getLimits({ params: { id: a.id } })).spentTodayUsd).toBe('1')
    // started again on next use
    await client.send({ params: { id: a.id }, body: { to, amount: '1' } })
    expect(await tokenBalance('local-base', to)).toBe(2n * 10n ** 18n)
  }, 120_000)
})

describe('a bundler that takes the operation and never answers', () => {
  it('keeps the reservation (SEND_PENDING, 504) until the chain decides: then confirmed with its transaction', async () => {
    const { a, agentKey, client } = await agentOn('local-base', '5')
    const to = fresh()
    // alto bundles it, and its answer is lost with the connection.
    const front = await frontAlto(true)
    try {
      const r = await post(`/api/agents/${a.id}/send`, { to, amount: '1' }, { 'x-agent-key': agentKey })
      expect([r.status, r.body.code], JSON.stringify(r.body)).toEqual([504, 'SEND_PENDING'])
      expect(front.taken).toBe(1)
      // alto bundled it: the tokens moved, and the reservation still counts against the limits.
      expect(await tokenBalance('local-base', to)).toBe(10n ** 18n)
      expect((await client.getLimits({ params: { id: a.id } })).spentTodayUsd).toBe('1')
      const spend = () =>
        d.services.store.db
          .selectFrom('platform_spends')
          .selectAll()
          .where('agent_id', '=', a.id)
          .executeTakeFirstOrThrow()
      const held = await spend()
      expect(held).toMatchObject({ state: 'reserved', tx: null })
      // The worker's recheck once the operation can no longer be included (its sponsor signature expired).
      const later = (Number(held.valid_before) + 120) * 1000
      await recheckPendingSpends({
        spends: d.services.platform.spends,
        evm: d.services.evm,
        log: pino({ level: 'silent' }),
        now: () => later,
      })
      const decided = await spend()
      expect(decided.state).toBe('confirmed')
      expect(decided.tx).toMatch(/^0x[0-9a-f]{64}$/)
      expect(decided.user_op).toMatch(/^0x[0-9a-f]{64}$/)
      expect((await client.getLimits({ params: { id: a.id } })).spentTodayUsd).toBe('1')
    } finally {
      await front.close()
    }
  }, 120_000)

  it('released once the operation can no longer be included and the chain shows it never was', async () => {
    const { a, agentKey, client } = await agentOn('local-base', '5')
    // The connection is cut after the operation was sent, before alto had it.
    const front = await frontAlto(false)
    try {
      const r = await post(`/api/agents/${a.id}/send`, { to: fresh(), amount: '1' }, { 'x-agent-key': agentKey })
      expect([r.status, r.body.code], JSON.stringify(r.body)).toEqual([504, 'SEND_PENDING'])
      expect((await client.getLimits({ params: { id: a.id } })).spentTodayUsd).toBe('1')
      const spend = () =>
        d.services.store.db
          .selectFrom('platform_spends')
          .selectAll()
          .where('agent_id', '=', a.id)
          .executeTakeFirstOrThrow()
      const later = (Number((await spend()).valid_before) + 120) * 1000
      await recheckPendingSpends({
        spends: d.services.platform.spends,
        evm: d.services.evm,
        log: pino({ level: 'silent' }),
        now: () => later,
      })
      expect(await spend()).toMatchObject({ state: 'released', tx: null })
      expect((await client.getLimits({ params: { id: a.id } })).spentTodayUsd).toBe('0')
      expect(await tokenBalance('local-base', a.wallet)).toBe(5n * 10n ** 18n)
    } finally {
      await front.close()
    }
  }, 120_000)
})

/**
 * A proxy put in front of local-base's alto: every call relayed, except that
 * pimlico_sendUserOperationNow's connection is cut without an answer, after alto bundled the
 * operation (`relaySend`) or without ever handing it to alto.
 */
async function frontAlto(relaySend: boolean) {
  const stack = await d.services.platform.aa['local-base']!.stack()
  const alto = stack.bundlerUrl
  const state = { taken: 0 }
  const proxy = createServer((req, res) => {
    let body = ''
    req.on('data', (c) => (body += c))
    req.on('end', async () => {
      const send = JSON.parse(body).method === 'pimlico_sendUserOperationNow'
      if (send) state.taken++
      if (send && !relaySend) return void req.socket.destroy()
      const up = await fetch(alto, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
      const answer = await up.text()
      if (send) return void req.socket.destroy()
      res.writeHead(up.status, { 'content-type': 'application/json' })
      res.end(answer)
    })
  })
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  stack.bundlerUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`
  return {
    get taken() {
      return state.taken
    },
    async close() {
      stack.bundlerUrl = alto
      proxy.closeAllConnections()
      await new Promise((resolve) => proxy.close(resolve))
    },
  }
}

describe('limits on send', () => {
  it('over the per-payment limit: LIMIT_EXCEEDED with the figures, nothing moved', async () => {
    const { a, agentKey } = await agentOn('local-radius', '5')
    await user.setLimits({ params: { id: a.id }, body: { perPaymentUsd: '1', dailyUsd: '4' } })
    const r = await post(`/api/agents/${a.id}/send`, { to: fresh(), amount: '1.25' }, { 'x-agent-key': agentKey })
    expect(r.status).toBe(403)
    expect(r.body).toMatchObject({
      code: 'LIMIT_EXCEEDED',
      limit: 'perPayment',
      scope: 'agent',
      limitUsd: '1',
      amountUsd: '1.25',
      remainingUsd: null,
    })
    expect(await tokenBalance('local-radius', a.wallet)).toBe(5_000_000n)
    expect((await user.getLimits({ params: { id: a.id } })).spentTodayUsd).toBe('0')
  })

  it('two concurrent sends racing a daily limit only one fits: exactly one passes', async () => {
    for (const network of ['local-radius', 'local-base']) {
      const { a, agentKey } = await agentOn(network, '10')
      await user.setLimits({ params: { id: a.id }, body: { dailyUsd: '3' } })
      const to = fresh()
      const results = await Promise.all(
        [1, 2, 3].map(() => post(`/api/agents/${a.id}/send`, { to, amount: '2' }, { 'x-agent-key': agentKey })),
      )
      const ok = results.filter((r) => r.status === 200)
      const refused = results.filter((r) => r.status === 403)
      expect(ok, network).toHaveLength(1)
      expect(refused, network).toHaveLength(2)
      for (const r of refused)
        expect(r.body).toMatchObject({
          code: 'LIMIT_EXCEEDED',
          limit: 'day',
          limitUsd: '3',
          amountUsd: '2',
          remainingUsd: '1',
        })
      const decimals = network === 'local-base' ? 18 : 6
      expect(await tokenBalance(network, to)).toBe(2n * 10n ** BigInt(decimals))
      expect(await user.getLimits({ params: { id: a.id } })).toMatchObject({
        spentTodayUsd: '2',
        remainingTodayUsd: '1',
      })
    }
  }, 120_000)
})

describe('payee and network rules on send (issue 41 item 2)', () => {
  it('a denied recipient, network or token is refused before signing: nothing moved, no spend row; an allowed one sends', async () => {
    const { a, client } = await agentOn('local-radius', '5')
    const denied = fresh()
    const rows = async () => (await user.listPayments({ params: { id: a.id } })).payments.length
    await user.setAgentPolicy({ params: { id: a.id }, body: { denyPayTo: [denied.toLowerCase()] } })
    await expect(client.send({ params: { id: a.id }, body: { to: denied, amount: '1' } })).rejects.toMatchObject({
      code: 'LIMIT_EXCEEDED',
      status: 403,
      body: { rule: 'denyPayTo', scope: 'agent', value: denied },
    })
    await user.setUserPolicy({ body: { denyNetworks: ['local-radius'] } })
    try {
      await expect(client.send({ params: { id: a.id }, body: { to: fresh(), amount: '1' } })).rejects.toMatchObject({
        code: 'LIMIT_EXCEEDED',
        body: { rule: 'denyNetworks', scope: 'user', value: 'local-radius' },
      })
    } finally {
      await user.setUserPolicy({ body: { clear: true } })
    }
    await user.setAgentPolicy({ params: { id: a.id }, body: { allowTokens: ['USDC'] } })
    await expect(client.send({ params: { id: a.id }, body: { to: fresh(), amount: '1' } })).rejects.toMatchObject({
      code: 'LIMIT_EXCEEDED',
      body: { rule: 'allowTokens', value: 'PUSD' },
    })
    expect(await tokenBalance('local-radius', a.wallet)).toBe(5_000_000n)
    expect(await rows()).toBe(0)
    await user.setAgentPolicy({
      params: { id: a.id },
      body: { allowTokens: ['pusd'], allowNetworks: [d.services.evm['local-radius']!.spec.caip2] },
    })
    const to = fresh()
    await client.send({ params: { id: a.id }, body: { to, amount: '1' } })
    expect(await tokenBalance('local-radius', to)).toBe(1_000_000n)
  })
})

describe('budgets per window on send (issue 41 item 1)', () => {
  const windows = [
    ['hour', 'hourlyUsd'],
    ['day', 'dailyUsd'],
    ['week', 'weeklyUsd'],
    ['month', 'monthlyUsd'],
  ] as const
  it('each agent window: exactly the budget is sent, one micro-dollar more is refused naming the window; nothing moved', async () => {
    for (const [w, field] of windows) {
      const { a, agentKey } = await agentOn('local-radius', '5')
      await user.setLimits({ params: { id: a.id }, body: { [field]: '3' } })
      expect(
        (await post(`/api/agents/${a.id}/send`, { to: fresh(), amount: '3' }, { 'x-agent-key': agentKey })).status,
        w,
      ).toBe(200)
      const r = await post(`/api/agents/${a.id}/send`, { to: fresh(), amount: '0.000001' }, { 'x-agent-key': agentKey })
      expect([r.status, r.body], w).toMatchObject([
        403,
        { code: 'LIMIT_EXCEEDED', limit: w, scope: 'agent', limitUsd: '3', amountUsd: '0.000001', remainingUsd: '0' },
      ])
      expect(await tokenBalance('local-radius', a.wallet), w).toBe(2_000_000n)
      const l = await user.getLimits({ params: { id: a.id } })
      expect(l.windows[w], w).toEqual({ limitUsd: '3', spentUsd: '3', remainingUsd: '0' })
      expect(l.mayStillSpendUsd, w).toBe('0')
    }
  }, 120_000)

  it("each user window: the user's agents together send exactly its budget; one micro-dollar more is refused naming the window and the user; nothing moved", async () => {
    const op = createPlatformClient({ url: d.urls.platform, operatorToken: d.services.keys.operatorToken })
    for (const [w, field] of windows) {
      const owner = createPlatformClient({
        url: d.urls.platform,
        userKey: (await op.createUser({ body: { name: `send-${w}` } })).userKey,
      })
      await owner.setUserLimits({ body: { [field]: '3' } })
      const [one, two] = await Promise.all(
        ['one', 'two'].map(async (name) => {
          const a = await owner.createAgent({ body: { name, network: 'local-radius' } })
          await faucet('local-radius', a.wallet, '5')
          return { a, agentKey: (await owner.createAgentKey({ params: { id: a.id }, body: {} })).agentKey }
        }),
      )
      expect(
        (await post(`/api/agents/${one!.a.id}/send`, { to: fresh(), amount: '2' }, { 'x-agent-key': one!.agentKey }))
          .status,
        w,
      ).toBe(200)
      expect(
        (await post(`/api/agents/${two!.a.id}/send`, { to: fresh(), amount: '1' }, { 'x-agent-key': two!.agentKey }))
          .status,
        w,
      ).toBe(200)
      const r = await post(
        `/api/agents/${one!.a.id}/send`,
        { to: fresh(), amount: '0.000001' },
        { 'x-agent-key': one!.agentKey },
      )
      expect([r.status, r.body], w).toMatchObject([
        403,
        { code: 'LIMIT_EXCEEDED', limit: w, scope: 'user', limitUsd: '3', amountUsd: '0.000001', remainingUsd: '0' },
      ])
      expect(await tokenBalance('local-radius', one!.a.wallet), w).toBe(3_000_000n)
    }
  }, 120_000)

  it("the user's budget holds across its agents; the CLI shows and sets it", async () => {
    const op = createPlatformClient({ url: d.urls.platform, operatorToken: d.services.keys.operatorToken })
    const { userKey: key } = await op.createUser({ body: { name: 'budgets' } })
    const owner = createPlatformClient({ url: d.urls.platform, userKey: key })
    const set = await runParx(d.urls.platform, ['user', 'limits', '--monthly', '3', '-o', 'json'], {
      PARX_USER_KEY: key,
    })
    expect([set.code, JSON.parse(set.out)]).toMatchObject([
      0,
      { monthlyUsd: '3', windows: { month: { limitUsd: '3', spentUsd: '0', remainingUsd: '3' } } },
    ])
    const agents = await Promise.all(
      ['one', 'two'].map(async (name) => {
        const a = await owner.createAgent({ body: { name, network: 'local-radius' } })
        await faucet('local-radius', a.wallet, '5')
        return { a, agentKey: (await owner.createAgentKey({ params: { id: a.id }, body: {} })).agentKey }
      }),
    )
    const [one, two] = agents as [(typeof agents)[0], (typeof agents)[0]]
    expect(
      (await post(`/api/agents/${one.a.id}/send`, { to: fresh(), amount: '2' }, { 'x-agent-key': one.agentKey }))
        .status,
    ).toBe(200)
    expect(
      (await post(`/api/agents/${two.a.id}/send`, { to: fresh(), amount: '1' }, { 'x-agent-key': two.agentKey }))
        .status,
    ).toBe(200)
    const r = await post(
      `/api/agents/${two.a.id}/send`,
      { to: fresh(), amount: '0.000001' },
      { 'x-agent-key': two.agentKey },
    )
    expect([r.status, r.body]).toMatchObject([
      403,
      { code: 'LIMIT_EXCEEDED', limit: 'month', scope: 'user', limitUsd: '3', remainingUsd: '0' },
    ])
    expect(r.body.error).toMatch(/parx user limits --monthly/)
    // The agent reads what it may still spend: its own windows (none) and its user's.
    const shown = await runParx(d.urls.platform, ['agent', 'limits', '-o', 'json'], {
      PARX_AGENT_KEY: two.agentKey,
      PARX_AGENT_ID: two.a.id,
    })
    expect([shown.code, JSON.parse(shown.out)]).toMatchObject([
      0,
      {
        windows: { month: { limitUsd: null, spentUsd: '1' } },
        user: { windows: { month: { spentUsd: '3', remainingUsd: '0' } } },
        mayStillSpendUsd: '0',
      },
    ])
    const cli = await runParx(d.urls.platform, ['send', '--to', fresh(), '--amount', '0.5', '-o', 'json'], {
      PARX_AGENT_KEY: one.agentKey,
      PARX_AGENT_ID: one.a.id,
    })
    expect(cli.code).toBe(7)
    expect(JSON.parse(cli.err || cli.out)).toMatchObject({
      code: 'LIMIT_EXCEEDED',
      error: expect.stringMatching(/this user's \(all its agents together\) month budget of 3 USD/),
    })
    const agentCannot = await post('/api/users/me/limits', { monthlyUsd: '1000' }, { 'x-agent-key': one.agentKey })
    expect(agentCannot.status).toBe(403)
    const raised = await runParx(d.urls.platform, ['user', 'limits', '--monthly', 'none', '-o', 'json'], {
      PARX_USER_KEY: key,
    })
    expect(JSON.parse(raised.out)).toMatchObject({ monthlyUsd: null })
    expect(
      (await post(`/api/agents/${two.a.id}/send`, { to: fresh(), amount: '0.5' }, { 'x-agent-key': two.agentKey }))
        .status,
    ).toBe(200)
  }, 120_000)
})

describe('figures (printed, not asserted)', () => {
  it('send submit-to-receipt p50 on local-radius and local-base; limit check overhead', async () => {
    const out: Record<string, string> = {}
    for (const network of ['local-radius', 'local-base']) {
      const { a, client } = await agentOn(network, '100')
      await client.send({ params: { id: a.id }, body: { to: fresh(), amount: '1' } }) // warm (delegation, alto)
      const ms: number[] = []
      for (let i = 0; i < 10; i++) {
        const t0 = performance.now()
        await client.send({ params: { id: a.id }, body: { to: fresh(), amount: '1' } })
        ms.push(performance.now() - t0)
      }
      out[`send ${network} p50 ms`] = p50(ms).toFixed(1)
    }
    const { a } = await agentOn('local-radius', '0')
    await user.setLimits({ params: { id: a.id }, body: { dailyUsd: '1000000' } })
    const spends = d.services.platform.spends
    const ms: number[] = []
    for (let i = 0; i < 50; i++) {
      const t0 = performance.now()
      const row = await spends.reserve({
        agentId: a.id,
        kind: 'send',
        amountMicros: 1n,
        token: 'PUSD',
        amount: '0.000001',
      })
      ms.push(performance.now() - t0)
      await spends.release(row.id, 'bench')
    }
    out['limit check + reserve p50 ms'] = p50(ms).toFixed(2)
    console.log('platform figures', out)
    expect(Object.keys(out)).toHaveLength(3)
  }, 180_000)
})
