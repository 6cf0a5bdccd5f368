import { BaseError } from '../../errors/base.js'
import { ApiError } from '../../sdk/http-errors.js'
import type { Agent } from '../../sdk/platform/agents.js'
import type { Endpoint } from '../../sdk/platform/endpoints.js'
import type { Limits, UserLimits } from '../../sdk/platform/limits.js'
import { type CliContext, createContext, type OutputFormat } from '../context.js'
import type { PlatformApi, PlatformConnection } from '../platform-client.js'
import type { PlatformDeps } from './platform-shared.js'

/**
 * A small in-memory platform for the commands' unit tests: the contract's answers and errors
 * (401 for an unknown or revoked key, 403 for the wrong kind, 404 for another's agent,
 * LIMIT_EXCEEDED over the limits), not the daemon. Tests of the real routes live with the daemon.
 */
export const USER_KEY = `parx-u-${'1'.repeat(64)}`
export const AGENT_KEY = `parx-a-${'2'.repeat(64)}`
export const REVOKED_AGENT_KEY = `parx-a-${'3'.repeat(64)}`
export const AGENT_ID = '1b4e28ba-2fa1-11d2-883f-0016d3cca427'
export const USER_ID = '6f1c3f5e-8d2b-4c1a-9e7f-2a3b4c5d6e7f'
export const SELLER_URL = 'http://127.0.0.1:9/paid/weather'
const NOW = '2026-11-23T20:00:00.000Z'
const TX = `0x${'ab'.repeat(32)}`

export type FakeState = {
  limits: Limits
  paid: number
  sent: number
  calls: string[]
  payBodies: unknown[]
  frozenAt?: string | null
  userLimits?: UserLimits
}

export function fakePlatform(keys: Omit<PlatformConnection, 'url'>, state: FakeState): PlatformApi {
  const unauthorized = () => new ApiError(401, 'UNAUTHORIZED', 'unknown or revoked key')
  const asAgent = () => {
    if (keys.agentKey === undefined) throw new ApiError(401, 'UNAUTHORIZED', 'missing key')
    if (keys.agentKey !== AGENT_KEY) throw unauthorized()
  }
  const asUser = () => {
    if (keys.userKey === undefined) throw new ApiError(403, 'FORBIDDEN', 'an agent key cannot act as its user')
    if (keys.userKey !== USER_KEY) throw unauthorized()
  }
  const asOwner = (id: string) => {
    if (keys.agentKey !== undefined) asAgent()
    else asUser()
    if (id !== AGENT_ID) throw new ApiError(404, 'NOT_FOUND', 'no such agent')
  }
  const agent = (): Agent => ({
    id: AGENT_ID,
    name: 'buyer',
    network: 'local-base',
    chainId: 31337,
    wallet: '0x1111111111111111111111111111111111111111',
    sendMethod: 'userOperation',
    tokens: [{ symbol: 'PUSD', decimals: 6, address: '0x2222222222222222222222222222222222222222' }],
    createdAt: NOW,
    limits: state.limits,
    frozen: !!state.frozenAt,
    frozenAt: state.frozenAt ?? null,
  })
  const spend = (usd: string) => {
    if (state.frozenAt)
      throw new ApiError(
        423,
        'AGENT_FROZEN',
        `agent ${AGENT_ID} is frozen by its owner since ${state.frozenAt}; nothing was signed or spent`,
        { frozenAt: state.frozenAt },
      )
    const per = state.limits.perPaymentUsd
    if (per !== null && Number(usd) > Number(per)) {
      throw new ApiError(403, 'LIMIT_EXCEEDED', `${usd} USD is over the per-payment limit of ${per} USD`, {
        limit: 'perPayment',
        limitUsd: per,
        amountUsd: usd,
        remainingUsd: null,
      })
    }
  }
  const endpoint: Endpoint = {
    id: '0e7c9a1b-1111-4222-8333-944455556666',
    name: null,
    url: SELLER_URL,
    upstreamUrl: 'http://127.0.0.1:9/weather',
    price: '0.25',
    network: 'local-base',
    token: 'PUSD',
    payTo: '0x3333333333333333333333333333333333333333',
    payToAgentId: null,
    createdAt: NOW,
    discoverable: false,
    description: null,
    webhookUrl: null,
    batchSettlement: false,
    authCapture: false,
  }
  const api: Partial<Record<keyof PlatformApi, (input: never) => Promise<unknown>>> = {
    whoamiUser: async () => (
      asUser(), { id: USER_ID, wallet: null, name: 'dev', createdAt: NOW, agents: 1, endpoints: 1 }
    ),
    whoamiAgent: async () => (asAgent(), agent()),
    listAgents: async () => (asUser(), { agents: [agent()] }),
    showAgent: async ({ params }: { params: { id: string } }) => (asOwner(params.id), agent()),
    createAgent: async ({ body }: { body: { name: string; network: string } }) => (
      asUser(), { ...agent(), name: body.name, network: body.network }
    ),
    getLimits: async ({ params }: { params: { id: string } }) => (asOwner(params.id), state.limits),
    setLimits: async ({ params, body }: { params: { id: string }; body: Partial<Limits> }) => {
      asUser()
      asOwner(params.id)
      state.limits = { ...state.limits, ...body }
      return state.limits
    },
    getUserLimits: async () => (asUser(), state.userLimits ?? noUserLimits()),
    setUserLimits: async ({ body }: { body: Partial<UserLimits> }) => {
      asUser()
      state.userLimits = { ...(state.userLimits ?? noUserLimits()), ...body }
      return state.userLimits
    },
    freezeAgent: async ({ params }: { params: { id: string } }) => {
      asUser()
      asOwner(params.id)
      state.frozenAt ??= NOW
      return agent()
    },
    unfreezeAgent: async ({ params }: { params: { id: string } }) => {
      asUser()
      asOwner(params.id)
      state.frozenAt = null
      return agent()
    },
    freezeAllAgents: async () => (asUser(), (state.frozenAt ??= NOW), { agents: [agent()] }),
    unfreezeAllAgents: async () => (asUser(), (state.frozenAt = null), { agents: [agent()] }),
    balance: async ({ params }: { params: { id: string } }) => {
      asOwner(params.id)
      return {
        agentId: AGENT_ID,
        network: 'local-base',
        wallet: agent().wallet,
        tokens: [{ symbol: 'PUSD', decimals: 6, amount: '12.5', raw: '12500000' }],
        native: { symbol: 'ETH', amount: '0', raw: '0' },
      }
    },
    send: async ({
      params,
      body,
    }: {
      params: { id: string }
      body: { to: string; amount: string; token?: string }
    }) => {
      asOwner(params.id)
      spend(body.amount)
      state.sent++
      return {
        id: '9d8c7b6a-1111-4222-8333-944455556666',
        agentId: AGENT_ID,
        network: 'local-base',
        method: 'userOperation',
        token: body.token ?? 'PUSD',
        amount: body.amount,
        from: agent().wallet,
        to: body.to,
        transaction: TX,
        userOperation: TX,
        status: 'confirmed',
        createdAt: NOW,
      }
    },
    swap: async ({ params, body }: { params: { id: string }; body: { from: string; to: string; amount: string } }) => {
      asOwner(params.id)
      spend(body.amount)
      return {
        id: '9d8c7b6a-2222-4222-8333-944455556666',
        agentId: AGENT_ID,
        network: 'local-base',
        from: { token: body.from, amount: body.amount },
        to: { token: body.to, amount: body.amount },
        transaction: TX,
        status: 'included',
        createdAt: NOW,
      }
    },
    pay: async ({
      params,
      body,
    }: {
      params: { id: string }
      body: { url: string; maxAmount?: string; dryRun?: boolean }
    }) => {
      asOwner(params.id)
      state.payBodies.push(body)
      const price = { protocol: 'x402-v2', amount: '0.25', token: 'PUSD', network: 'local-base', payTo: endpoint.payTo }
      if (body.dryRun) {
        const within = state.limits.perPaymentUsd === null || Number(state.limits.perPaymentUsd) >= 0.25
        const refusedBy = within
          ? null
          : {
              rule: 'perPayment',
              scope: 'agent',
              value: state.limits.perPaymentUsd,
              message:
                `0.25 USD is above this agent's per-payment limit of ` +
                `${state.limits.perPaymentUsd} USD; nothing was spent`,
            }
        return {
          dryRun: true,
          wouldPay: within,
          approvalRequired: false,
          approveAboveUsd: null,
          refusedBy,
          offer: { ...price, scheme: 'exact' },
          remaining: { perPayment: state.limits.perPaymentUsd, day: state.limits.remainingTodayUsd },
          price,
          withinLimits: within,
          remainingTodayUsd: state.limits.remainingTodayUsd,
        }
      }
      if (body.maxAmount !== undefined && Number(body.maxAmount) < 0.25) {
        const error = `the seller asks 0.25 PUSD, above maxAmount ${body.maxAmount}; nothing was paid`
        throw new ApiError(409, 'PRICE_ABOVE_MAX', error, {
          maxAmount: body.maxAmount,
          amount: '0.25',
          token: 'PUSD',
          error,
          code: 'PRICE_ABOVE_MAX',
        })
      }
      spend('0.25')
      state.paid++
      return {
        dryRun: false,
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: '{"forecast":"sun"}',
        bodyEncoding: 'utf8',
        receipt: { ...price, transaction: TX, payer: agent().wallet },
      }
    },
    manifest: async () => ({
      name: 'parx',
      version: '0.1.0',
      profile: 'local',
      networks: [
        {
          key: 'local-base',
          chainId: 31337,
          caip2: 'eip155:31337',
          sendMethod: 'userOperation',
          tokens: [{ symbol: 'PUSD', decimals: 6, address: null }],
          swapPairs: [['USDC', 'PUSD']],
        },
      ],
      payments: { protocols: ['x402-v2', 'x402-v1', 'mpp'], facilitator: 'http://127.0.0.1:8420/facilitator' },
      limits: {
        currency: 'USD',
        kinds: ['perPayment', 'hour', 'day', 'week', 'month', 'allowedHosts'],
        windowSeconds: 86400,
        windows: { hour: 3600, day: 86400, week: 604800, month: 2592000 },
        scopes: ['agent', 'user'],
        countedBy: ['pay', 'send', 'swap'],
      },
      auth: { userKeyHeader: 'x-user-key', agentKeyHeader: 'x-agent-key' },
      routes: [{ method: 'GET', path: '/api/agents/me', summary: 'the agent' }],
    }),
    listEndpoints: async () => (asUser(), { endpoints: [endpoint] }),
    createEndpoint: async ({
      body,
    }: {
      body: { upstreamUrl: string; price: string; batchSettlement?: boolean; authCapture?: boolean }
    }) => (
      asUser(),
      {
        ...endpoint,
        upstreamUrl: body.upstreamUrl,
        price: body.price,
        batchSettlement: body.batchSettlement ?? false,
        authCapture: body.authCapture ?? false,
      }
    ),
    updateEndpoint: async ({
      params,
      body,
    }: {
      params: { id: string }
      body: { discoverable?: boolean; webhookUrl?: string | null }
    }) => (
      asUser(),
      {
        ...endpoint,
        id: params.id,
        discoverable: body.discoverable ?? endpoint.discoverable,
        webhookUrl: body.webhookUrl ?? null,
        ...(body.webhookUrl ? { webhookSecret: `whsec_${'A'.repeat(43)}=` } : {}),
      }
    ),
    deleteEndpoint: async ({ params }: { params: { id: string } }) => (asUser(), { id: params.id, deleted: true }),
    refundPayment: async ({ body }: { body: { paymentId: string; amount?: string } }) => {
      asUser()
      if (body.paymentId !== `0x${'cd'.repeat(32)}`)
        throw new ApiError(404, 'HOLD_NOT_FOUND', 'no auth-capture payment of your endpoints')
      const amount = body.amount ?? '0.01'
      return {
        paymentId: body.paymentId,
        endpointId: AGENT_ID,
        network: 'local-base',
        token: 'USDC',
        amount,
        amountRaw: String(Math.round(Number(amount) * 1e6)),
        captured: '0.01',
        refunded: amount,
        transaction: TX,
        refundDeadline: NOW,
      }
    },
    createAgentKey: async ({ params }: { params: { id: string } }) => {
      asUser()
      asOwner(params.id)
      return {
        key: {
          id: '5a5a5a5a-1111-4222-8333-944455556666',
          agentId: AGENT_ID,
          label: null,
          hint: 'parx-a-…2222',
          createdAt: NOW,
          lastUsedAt: null,
          revokedAt: null,
        },
        agentKey: AGENT_KEY,
      }
    },
    revokeAgentKey: async ({ params }: { params: { id: string; keyId: string } }) => (
      asUser(),
      {
        id: params.keyId,
        agentId: params.id,
        label: null,
        hint: 'parx-a-…3333',
        createdAt: NOW,
        lastUsedAt: null,
        revokedAt: NOW,
      }
    ),
    createUser: async () => {
      if (!keys.operatorToken) throw new ApiError(401, 'UNAUTHORIZED', 'operator token needed')
      return {
        user: { id: USER_ID, wallet: null, name: 'dev', createdAt: NOW, agents: 0, endpoints: 0 },
        userKey: USER_KEY,
      }
    },
  }
  return new Proxy(api, {
    get: (t, name: string) => async (input: never) => {
      state.calls.push(name)
      const f = t[name as keyof PlatformApi]
      if (!f) throw new BaseError('NOT_FOUND', `fake platform has no ${name}`)
      return f(input)
    },
  }) as unknown as PlatformApi
}

const openWindow = () => ({ limitUsd: null, spentUsd: '0', remainingUsd: null })
const openWindows = () => ({ hour: openWindow(), day: openWindow(), week: openWindow(), month: openWindow() })
export const noUserLimits = (): UserLimits => ({
  perPaymentUsd: null,
  hourlyUsd: null,
  dailyUsd: null,
  weeklyUsd: null,
  monthlyUsd: null,
  windows: openWindows(),
})
export const noLimits = (): Limits => ({
  perPaymentUsd: null,
  hourlyUsd: null,
  dailyUsd: null,
  weeklyUsd: null,
  monthlyUsd: null,
  allowedHosts: null,
  approveAboveUsd: null,
  spentTodayUsd: '0',
  remainingTodayUsd: null,
  windows: openWindows(),
  user: { perPaymentUsd: null, windows: openWindows() },
  mayStillSpendUsd: null,
})

/** Deps as platformDeps builds them, over the fake; output lines are collected. */
export function fakeDeps(
  keys: Omit<PlatformConnection, 'url'> & { agentId?: string },
  opts: {
    output?: OutputFormat
    state?: FakeState
    env?: NodeJS.ProcessEnv
    interactive?: boolean
    confirm?: (m: string) => Promise<boolean>
  } = {},
): PlatformDeps & { state: FakeState; out: string[]; err: string[] } {
  const out: string[] = []
  const err: string[] = []
  const state = opts.state ?? { limits: noLimits(), paid: 0, sent: 0, calls: [], payBodies: [] }
  const tty = opts.interactive ? { stdin: true, stdout: true, stderr: true } : undefined
  const ctx: CliContext = createContext(
    {
      env: opts.env ?? {},
      stdout: (s) => void out.push(s),
      stderr: (s) => void err.push(s),
      tty,
      stderrStream: { isTTY: false, write: () => true },
    },
    { output: opts.output ?? 'json', apiUrl: 'http://127.0.0.1:9' },
  )
  return {
    ctx,
    state,
    out,
    err,
    platform: fakePlatform(keys, state),
    session: { url: 'http://127.0.0.1:9', agentKey: !!keys.agentKey, userKey: !!keys.userKey, agentId: keys.agentId },
    connect: (k) => fakePlatform(k, state),
    confirm: opts.confirm,
  }
}
