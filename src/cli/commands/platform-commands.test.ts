import { describe, expect, it } from 'vitest'
import { emit } from '../context.js'
import { describeError } from '../describe-error.js'
import * as agentCreate from './agent/create.js'
import * as agentFreeze from './agent/freeze.js'
import * as agentKeyCreate from './agent/key-create.js'
import * as agentKeyRevoke from './agent/key-revoke.js'
import * as agentLimits from './agent/limits.js'
import * as agentList from './agent/list.js'
import * as agentShow from './agent/show.js'
import * as agentUnfreeze from './agent/unfreeze.js'
import * as balance from './balance.js'
import * as endpointCreate from './endpoint/create.js'
import * as endpointDelete from './endpoint/delete.js'
import * as endpointList from './endpoint/list.js'
import * as endpointRefund from './endpoint/refund.js'
import * as endpointUpdate from './endpoint/update.js'
import { AGENT_ID, AGENT_KEY, fakeDeps, REVOKED_AGENT_KEY, SELLER_URL, USER_KEY } from './fake-platform.js'
import * as manifest from './manifest.js'
import * as pay from './pay.js'
import type { CommandResult, PlatformDeps } from './platform-shared.js'
import * as send from './send.js'
import * as swap from './swap.js'
import * as userCreate from './user/create.js'
import * as userLimits from './user/limits.js'
import * as userWhoami from './user/whoami.js'
import * as whoami from './whoami.js'

const agent = { agentKey: AGENT_KEY }
const user = { userKey: USER_KEY }
const TO = '0x4444444444444444444444444444444444444444'

/** Runs a command as the CLI does (run, then print) and returns what it printed and its exit code. */
async function cli<O, T>(
  cmd: { run: (o: O, d: PlatformDeps) => Promise<CommandResult<T>>; human: (d: T, c: PlatformDeps['ctx']) => string[] },
  opts: O,
  deps: ReturnType<typeof fakeDeps>,
) {
  try {
    const r = await cmd.run(opts, deps)
    emit(deps.ctx, r.data, () => cmd.human(r.data, deps.ctx))
    return { exit: r.exit as number, data: r.data, out: deps.out, err: deps.err }
  } catch (e) {
    const d = describeError(e)
    return { exit: d.exit as number, error: { error: d.message, code: d.code }, out: deps.out, err: deps.err }
  }
}

describe('agent commands', () => {
  it('whoami: the agent, as JSON and as text', async () => {
    const json = await cli(whoami, {}, fakeDeps(agent))
    expect(json.exit).toBe(0)
    expect(JSON.parse(json.out.join(''))).toMatchObject({
      id: AGENT_ID,
      network: 'local-base',
      wallet: expect.stringMatching(/^0x/),
      tokens: [{ symbol: 'PUSD' }],
      limits: { perPaymentUsd: null },
    })
    const text = await cli(whoami, {}, fakeDeps(agent, { output: 'text' }))
    expect(text.out.join('\n')).toMatch(/agent\s+buyer/)
    expect(text.out.join('\n')).toMatch(/limits\s+none/)
  })

  it('balance: finds the agent id from the key when none is configured, or uses the configured one', async () => {
    const d = fakeDeps(agent)
    const r = await cli(balance, {}, d)
    expect(JSON.parse(r.out[0]!)).toMatchObject({
      agentId: AGENT_ID,
      tokens: [{ symbol: 'PUSD', amount: '12.5' }],
      native: { amount: '0' },
    })
    expect(d.state.calls).toEqual(['whoamiAgent', 'balance'])
    const configured = fakeDeps({ ...agent, agentId: AGENT_ID })
    await cli(balance, {}, configured)
    expect(configured.state.calls).toEqual(['balance'])
    const text = await cli(balance, {}, fakeDeps(agent, { output: 'text' }))
    expect(text.out.join('\n')).toMatch(/PUSD\s+12\.5/)
  })

  it('send: default token left to the platform (TOKEN_A), amounts and addresses checked first', async () => {
    const d = fakeDeps(agent)
    const r = await cli(send, { to: TO, amount: '1.5' }, d)
    expect(r.exit).toBe(0)
    expect(r.data).toMatchObject({
      token: 'PUSD',
      amount: '1.5',
      to: TO,
      status: 'confirmed',
      userOperation: expect.stringMatching(/^0x/),
    })
    for (const [opts, flag] of [
      [{ to: '0x12', amount: '1' }, '--to'],
      [{ to: `0x${'0'.repeat(40)}`, amount: '1' }, '--to'],
      [{ to: TO, amount: '-1' }, '--amount'],
      [{ to: TO, amount: '1e3' }, '--amount'],
      [{ to: TO, amount: '0' }, '--amount'],
      [{ to: TO, amount: '1', token: 'P U' }, '--token'],
    ] as const) {
      const bad = await cli(send, opts, fakeDeps(agent))
      expect(bad.exit).toBe(2)
      expect(bad.error).toMatchObject({ code: 'USAGE', error: expect.stringContaining(flag) })
    }
    expect(d.state.sent).toBe(1)
  })

  it('swap: pair and amount go to the platform; text names both sides', async () => {
    const r = await cli(swap, { from: 'usdc', to: 'pusd', amount: '10' }, fakeDeps(agent, { output: 'text' }))
    expect(r.out[0]).toBe('Swapped 10 USDC for 10 PUSD on local-base.')
    expect((await cli(swap, { from: 'USDC', to: 'PUSD', amount: '1,5' }, fakeDeps(agent))).exit).toBe(2)
  })

  it('manifest needs no key', async () => {
    const r = await cli(manifest, {}, fakeDeps({}))
    expect(r.exit).toBe(0)
    expect(JSON.parse(r.out[0]!)).toMatchObject({
      name: 'parx',
      networks: [{ key: 'local-base' }],
      routes: expect.any(Array),
    })
  })

  it('a wrong or revoked key is the auth exit code with the platform code', async () => {
    for (const key of [REVOKED_AGENT_KEY, `parx-a-${'9'.repeat(64)}`]) {
      const r = await cli(whoami, {}, fakeDeps({ agentKey: key }))
      expect(r).toMatchObject({ exit: 4, error: { code: 'UNAUTHORIZED' } })
    }
  })

  it('an agent command with only a user logged in, and a user command with only an agent, say which login is missing', async () => {
    for (const run of [() => cli(whoami, {}, fakeDeps(user)), () => cli(balance, {}, fakeDeps(user))]) {
      const r = await run()
      expect(r).toMatchObject({
        exit: 4,
        error: {
          code: 'NO_CREDENTIALS',
          error: expect.stringMatching(/needs an agent key \(a user key is logged in.*parx agent login/),
        },
      })
    }
    const s = await cli(send, { to: TO, amount: '1' }, fakeDeps(user))
    expect(s.error?.code).toBe('NO_CREDENTIALS')
    for (const run of [
      () => cli(agentList, {}, fakeDeps(agent)),
      () => cli(endpointList, {}, fakeDeps(agent)),
      () => cli(userWhoami, {}, fakeDeps(agent)),
    ]) {
      const r = await run()
      expect(r).toMatchObject({
        exit: 4,
        error: {
          code: 'NO_CREDENTIALS',
          error: expect.stringMatching(/needs a user key \(an agent key is logged in.*parx auth user login/),
        },
      })
    }
    const none = await cli(whoami, {}, fakeDeps({}))
    expect(none.error?.error).toMatch(/needs an agent key: log in/)
  })

  it('LIMIT_EXCEEDED from the platform is the limit exit code (7)', async () => {
    const d = fakeDeps(agent)
    d.state.limits = { ...d.state.limits, perPaymentUsd: '1' }
    const r = await cli(send, { to: TO, amount: '2' }, d)
    expect(r).toMatchObject({ exit: 7, error: { code: 'LIMIT_EXCEEDED' } })
    expect(JSON.parse(JSON.stringify(r.error))).toEqual({
      error: expect.stringMatching(/per-payment limit/),
      code: 'LIMIT_EXCEEDED',
    })
  })
})

describe('pay', () => {
  it('without a terminal pays within the limits and --max without asking', async () => {
    const asked: string[] = []
    const d = fakeDeps(agent, { confirm: async (m) => (asked.push(m), true) })
    const r = await cli(pay, { url: SELLER_URL, max: '1' }, d)
    expect(r.exit).toBe(0)
    expect(r.data).toMatchObject({
      dryRun: false,
      status: 200,
      body: '{"forecast":"sun"}',
      receipt: { amount: '0.25', token: 'PUSD', transaction: expect.stringMatching(/^0x/) },
    })
    expect(asked).toEqual([])
    expect(d.state.paid).toBe(1)
  })

  it('--max below the price: PRICE_ABOVE_MAX, the limit exit code, nothing paid', async () => {
    const d = fakeDeps(agent)
    expect(await cli(pay, { url: SELLER_URL, max: '0.1' }, d)).toMatchObject({
      exit: 7,
      error: { code: 'PRICE_ABOVE_MAX' },
    })
    expect(d.state.paid).toBe(0)
  })

  it('a pay over the agent limits is refused (7), nothing paid', async () => {
    const d = fakeDeps(agent)
    d.state.limits = { ...d.state.limits, perPaymentUsd: '0.1' }
    expect(await cli(pay, { url: SELLER_URL }, d)).toMatchObject({ exit: 7, error: { code: 'LIMIT_EXCEEDED' } })
    expect(d.state.paid).toBe(0)
  })

  it('--dry-run only prices', async () => {
    const d = fakeDeps(agent, { output: 'text' })
    const r = await cli(pay, { url: SELLER_URL, dryRun: true }, d)
    expect(r.data).toMatchObject({
      dryRun: true,
      price: { amount: '0.25', token: 'PUSD', network: 'local-base' },
      withinLimits: true,
    })
    expect(r.out.join('\n')).toMatch(/price\s+0\.25 PUSD/)
    expect(d.state.paid).toBe(0)
  })

  it('on a terminal shows price, network, token and payee, asks, and caps the payment at the price shown', async () => {
    const asked: string[] = []
    const d = fakeDeps(agent, {
      output: 'text',
      interactive: true,
      env: { NO_COLOR: '1' },
      confirm: async (m) => (asked.push(m), true),
    })
    const r = await cli(pay, { url: SELLER_URL, max: '5' }, d)
    expect(d.state.payBodies).toEqual([
      { url: SELLER_URL, dryRun: true, maxAmount: '5' },
      { url: SELLER_URL, dryRun: false, maxAmount: '0.25' },
    ])
    expect(r.exit).toBe(0)
    expect(asked).toEqual([expect.stringMatching(/^Pay 0\.25 PUSD to 0x3333/)])
    expect(d.err.join('\n')).toMatch(/price\s+0\.25 PUSD[\s\S]*network\s+local-base[\s\S]*payee\s+0x3333/)
    expect(d.out).toEqual(['{"forecast":"sun"}'])
    expect(d.err.join('\n')).toMatch(/Paid 0\.25 PUSD/)
    expect(d.state.paid).toBe(1)
  })

  it('on a terminal, declining pays nothing and exits 130; --yes does not ask', async () => {
    const d = fakeDeps(agent, { output: 'text', interactive: true, confirm: async () => false })
    expect(await cli(pay, { url: SELLER_URL }, d)).toMatchObject({ exit: 130, error: { code: 'CANCELLED' } })
    expect(d.state.paid).toBe(0)
    const y = fakeDeps(agent, {
      output: 'text',
      interactive: true,
      confirm: async () => {
        throw new Error('asked')
      },
    })
    expect((await cli(pay, { url: SELLER_URL, yes: true }, y)).exit).toBe(0)
  })

  it('a malformed URL or --max is a usage error before any request', async () => {
    for (const opts of [{ url: 'notaurl' }, { url: 'file:///etc/passwd' }, { url: SELLER_URL, max: 'lots' }]) {
      const d = fakeDeps(agent)
      expect(await cli(pay, opts, d)).toMatchObject({ exit: 2, error: { code: 'USAGE' } })
      expect(d.state.calls).toEqual([])
    }
  })
})

describe('user commands', () => {
  it('user whoami, agent list, show, create, limits', async () => {
    expect(JSON.parse((await cli(userWhoami, {}, fakeDeps(user))).out[0]!)).toMatchObject({ name: 'dev', agents: 1 })
    expect((await cli(agentList, {}, fakeDeps(user))).data).toMatchObject({ agents: [{ id: AGENT_ID }] })
    expect((await cli(agentList, {}, fakeDeps(user, { output: 'text' }))).out[0]).toMatch(
      new RegExp(`^${AGENT_ID}\\s+buyer`),
    )
    expect((await cli(agentShow, { id: AGENT_ID }, fakeDeps(user))).data).toMatchObject({ id: AGENT_ID })
    expect(await cli(agentShow, {}, fakeDeps(user))).toMatchObject({
      exit: 2,
      error: { error: expect.stringMatching(/which agent/) },
    })
    expect(await cli(agentShow, { id: 'nope' }, fakeDeps(user))).toMatchObject({ exit: 2 })
    expect(await cli(agentShow, { id: '00000000-0000-4000-8000-000000000000' }, fakeDeps(user))).toMatchObject({
      exit: 6,
      error: { code: 'NOT_FOUND' },
    })
    expect((await cli(agentCreate, { name: 'seller', network: 'Local-Radius' }, fakeDeps(user))).data).toMatchObject({
      name: 'seller',
      network: 'local-radius',
    })
    const d = fakeDeps(user)
    const set = await cli(
      agentLimits,
      { agent: AGENT_ID, perPayment: '0.5', daily: 'none', allowedHosts: 'api.example.com,*.example.org' },
      d,
    )
    expect(set.data).toMatchObject({
      perPaymentUsd: '0.5',
      dailyUsd: null,
      allowedHosts: ['api.example.com', '*.example.org'],
    })
    expect(d.state.calls).toEqual(['setLimits'])
    expect(await cli(agentLimits, { agent: AGENT_ID, daily: '1.1234567' }, fakeDeps(user))).toMatchObject({ exit: 2 })
    expect(await cli(agentLimits, { agent: AGENT_ID, allowedHosts: 'https://x.com/a' }, fakeDeps(user))).toMatchObject({
      exit: 2,
    })
    // An agent may read its own limits but not set them.
    expect((await cli(agentLimits, {}, fakeDeps({ ...agent, agentId: AGENT_ID }))).exit).toBe(0)
    expect((await cli(agentLimits, { perPayment: '1' }, fakeDeps({ ...agent, agentId: AGENT_ID }))).error?.code).toBe(
      'NO_CREDENTIALS',
    )
  })

  it('agent limits sets every window; user limits sets the budgets across all agents (user key only)', async () => {
    const d = fakeDeps(user)
    const set = await cli(agentLimits, { agent: AGENT_ID, hourly: '1', weekly: '7.5', monthly: 'none' }, d)
    expect(set.data).toMatchObject({ hourlyUsd: '1', weeklyUsd: '7.5', monthlyUsd: null })
    expect(d.state.calls).toEqual(['setLimits'])
    expect(await cli(agentLimits, { agent: AGENT_ID, weekly: '0.0000001' }, fakeDeps(user))).toMatchObject({ exit: 2 })
    const text = await cli(agentLimits, { agent: AGENT_ID }, fakeDeps(user, { output: 'text' }))
    expect(text.out.join('\n')).toMatch(/hour\s+no limit \(0 USD spent\)[\s\S]*user month/)
    const u = fakeDeps(user)
    expect((await cli(userLimits, { monthly: '200', perPayment: '5' }, u)).data).toMatchObject({
      monthlyUsd: '200',
      perPaymentUsd: '5',
      hourlyUsd: null,
    })
    expect(u.state.calls).toEqual(['setUserLimits'])
    expect((await cli(userLimits, {}, u)).data).toMatchObject({ monthlyUsd: '200' })
    expect((await cli(userLimits, {}, fakeDeps(agent))).error?.code).toBe('NO_CREDENTIALS')
  })

  it('agent key create prints the key once; revoke takes the key id', async () => {
    const c = await cli(agentKeyCreate, { agent: AGENT_ID, label: 'ci' }, fakeDeps(user, { output: 'text' }))
    expect(c.out[0]).toMatch(/agent key\s+parx-a-2{64}/)
    expect(
      (await cli(agentKeyRevoke, { agent: AGENT_ID, keyId: '5a5a5a5a-1111-4222-8333-944455556666' }, fakeDeps(user)))
        .data,
    ).toMatchObject({ revokedAt: expect.any(String) })
    expect(await cli(agentKeyRevoke, { agent: AGENT_ID, keyId: 'k1' }, fakeDeps(user))).toMatchObject({ exit: 2 })
  })

  it("agent freeze / unfreeze: one agent or --all, user key only; a frozen agent's send and pay exit 9 with AGENT_FROZEN", async () => {
    const d = fakeDeps(user, { output: 'text' })
    const f = await cli(agentFreeze, { id: AGENT_ID }, d)
    expect(f).toMatchObject({
      exit: 0,
      data: { agents: [{ id: AGENT_ID, frozen: true, frozenAt: expect.any(String) }] },
    })
    expect(f.out[0]).toMatch(/is frozen since/)
    const spendAs = fakeDeps(agent, { state: d.state })
    expect(await cli(send, { to: TO, amount: '1' }, spendAs)).toMatchObject({
      exit: 9,
      error: { code: 'AGENT_FROZEN' },
    })
    expect(await cli(pay, { url: SELLER_URL, yes: true }, fakeDeps(agent, { state: d.state }))).toMatchObject({
      exit: 9,
      error: { code: 'AGENT_FROZEN' },
    })
    expect(d.state).toMatchObject({ sent: 0, paid: 0 })
    expect((await cli(agentUnfreeze, { id: AGENT_ID }, d)).data).toMatchObject({
      agents: [{ frozen: false, frozenAt: null }],
    })
    expect((await cli(send, { to: TO, amount: '1' }, fakeDeps(agent, { state: d.state }))).exit).toBe(0)
    expect((await cli(agentFreeze, { all: true }, d)).data).toMatchObject({ agents: [{ frozen: true }] })
    expect(d.state.calls.filter((c) => /reeze/.test(c))).toEqual(['freezeAgent', 'unfreezeAgent', 'freezeAllAgents'])
    expect(await cli(agentFreeze, { id: AGENT_ID, all: true }, fakeDeps(user))).toMatchObject({ exit: 2 })
    // The agent's own key cannot freeze or unfreeze it.
    expect((await cli(agentUnfreeze, { id: AGENT_ID }, fakeDeps(agent))).error?.code).toBe('NO_CREDENTIALS')
  })

  it('endpoint create, list, delete; malformed flags are usage errors', async () => {
    const ok = await cli(
      endpointCreate,
      { upstream: 'http://127.0.0.1:9/w', price: '0.01', network: 'local-base', token: 'pusd', payTo: AGENT_ID },
      fakeDeps(user),
    )
    expect(ok.data).toMatchObject({
      url: SELLER_URL,
      price: '0.01',
      upstreamUrl: 'http://127.0.0.1:9/w',
      batchSettlement: false,
    })
    const channels = await cli(
      endpointCreate,
      {
        upstream: 'http://127.0.0.1:9/w',
        price: '0.01',
        network: 'local-base',
        token: 'usdc',
        payTo: AGENT_ID,
        batchSettlement: true,
      },
      fakeDeps(user),
    )
    expect(channels.data).toMatchObject({ batchSettlement: true })
    for (const bad of [
      { upstream: 'ftp://x', price: '1', network: 'local-base', token: 'PUSD', payTo: AGENT_ID },
      { upstream: 'http://x', price: '1.', network: 'local-base', token: 'PUSD', payTo: AGENT_ID },
      { upstream: 'http://x', price: '1', network: 'local-base', token: 'PUSD', payTo: 'someone' },
    ])
      expect((await cli(endpointCreate, bad, fakeDeps(user))).exit).toBe(2)
    expect((await cli(endpointList, {}, fakeDeps(user))).data).toMatchObject({ endpoints: [{ price: '0.25' }] })
    expect((await cli(endpointDelete, { id: AGENT_ID }, fakeDeps(user))).data).toEqual({ id: AGENT_ID, deleted: true })
  })

  it('endpoint refund: sends the payment id and the amount, prints what came back; a bad id or amount is a usage error', async () => {
    const id = `0x${'cd'.repeat(32)}`
    const r = await cli(endpointRefund, { paymentId: id, amount: '0.004' }, fakeDeps(user, { output: 'text' }))
    expect(r.exit).toBe(0)
    expect(r.out.join('\n')).toMatch(/Refunded 0\.004 USDC on local-base/)
    expect((await cli(endpointRefund, { paymentId: id }, fakeDeps(user))).data).toMatchObject({
      amount: '0.01',
      refunded: '0.01',
    })
    expect((await cli(endpointRefund, { paymentId: `0x${'ee'.repeat(32)}` }, fakeDeps(user))).exit).not.toBe(0)
    for (const bad of [{ paymentId: '0x12' }, { paymentId: id, amount: '-1' }])
      expect((await cli(endpointRefund, bad, fakeDeps(user))).exit).toBe(2)
    const withAuthCapture = await cli(
      endpointCreate,
      {
        upstream: 'http://127.0.0.1:9/w',
        price: '0.01',
        network: 'local-base',
        token: 'usdc',
        payTo: AGENT_ID,
        authCapture: true,
      },
      fakeDeps(user),
    )
    expect(withAuthCapture.data).toMatchObject({ authCapture: true })
  })

  it('endpoint update: bazaar opt-in and a webhook whose secret is printed once; bad flags are usage errors', async () => {
    const u = await cli(
      endpointUpdate,
      { id: AGENT_ID, discoverable: 'yes', webhookUrl: 'https://seller.example/hook' },
      fakeDeps(user, { output: 'text' }),
    )
    expect(u.exit).toBe(0)
    expect(u.out.join('\n')).toMatch(/bazaar\s+listed/)
    expect(u.out.join('\n')).toMatch(/secret\s+whsec_A{43}=/)
    expect((await cli(endpointUpdate, { id: AGENT_ID, webhookUrl: 'none' }, fakeDeps(user))).data).toMatchObject({
      webhookUrl: null,
    })
    for (const bad of [
      { id: AGENT_ID },
      { id: AGENT_ID, discoverable: 'maybe' },
      { id: AGENT_ID, webhookUrl: 'ftp://x' },
      { id: 'x', discoverable: 'no' },
    ]) {
      expect((await cli(endpointUpdate, bad, fakeDeps(user))).exit).toBe(2)
    }
  })

  it('user create uses the operator token and prints the user key once', async () => {
    const r = await cli(userCreate, { name: 'dev' }, fakeDeps({ operatorToken: 'op' }, { output: 'text' }))
    expect(r.out[0]).toMatch(/user key\s+parx-u-1{64}/)
    expect((await cli(userCreate, { wallet: '0x12' }, fakeDeps({ operatorToken: 'op' }))).exit).toBe(2)
  })
})
