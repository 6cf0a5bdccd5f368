import type { ParxConfig } from '../../src/config/schema.js'
import { BaseError } from '../../src/errors/index.js'
import type { Store } from '../store/store.js'
import type { LimitPolicy } from './limits.js'

export type QuotaSettings = ParxConfig['quotas']
export type QuotaName =
  | 'agents'
  | 'endpoints'
  | 'webhooks'
  | 'userKeys'
  | 'agentKeys'
  | 'partnerKeys'
  | 'concurrentPays'

/** The settings as the schema's defaults give them (tests and embedders that pass none). */
export const DEFAULT_QUOTAS: QuotaSettings = {
  agentsPerUser: 25,
  endpointsPerUser: 100,
  webhooksPerUser: 20,
  userKeysPerUser: 10,
  agentKeysPerAgent: 10,
  partnerKeysPerWallet: 10,
  concurrentPaysPerUser: 8,
}

/**
 * What a new agent's limits are when the settings leave them out: conservative hosted, none on the local profile (test
 * money).
 */
export const HOSTED_NEW_AGENT_LIMITS = { perPaymentUsd: '1', dailyUsd: '10' } as const

/** The limits a new agent starts with on this profile and settings; the user lifts them with set-limits. */
export function newAgentLimits(
  profile: ParxConfig['profile'],
  q: Partial<QuotaSettings>,
): Pick<LimitPolicy, 'perPaymentUsd' | 'dailyUsd'> {
  const hosted = profile !== 'local'
  return {
    perPaymentUsd:
      q.newAgentPerPaymentUsd !== undefined
        ? q.newAgentPerPaymentUsd
        : hosted
          ? HOSTED_NEW_AGENT_LIMITS.perPaymentUsd
          : null,
    dailyUsd: q.newAgentDailyUsd !== undefined ? q.newAgentDailyUsd : hosted ? HOSTED_NEW_AGENT_LIMITS.dailyUsd : null,
  }
}

const what: Record<QuotaName, { noun: string; setting: keyof QuotaSettings; next: string }> = {
  agents: {
    noun: 'agents',
    setting: 'agentsPerUser',
    next: 'reuse an agent you have, or ask the operator to raise it',
  },
  endpoints: {
    noun: 'endpoints',
    setting: 'endpointsPerUser',
    next: 'delete one you no longer sell (DELETE /api/endpoints/:id), or ask the operator to raise it',
  },
  webhooks: {
    noun: 'endpoints with a webhook',
    setting: 'webhooksPerUser',
    next: 'remove the webhook of one (webhookUrl: null) or delete it, or ask the operator to raise it',
  },
  userKeys: {
    noun: 'live user keys',
    setting: 'userKeysPerUser',
    next: 'revoke one you no longer use, then create the new one',
  },
  agentKeys: {
    noun: 'live keys on this agent',
    setting: 'agentKeysPerAgent',
    next: 'revoke one you no longer use (DELETE /api/agents/:id/keys/:keyId), then create the new one',
  },
  partnerKeys: {
    noun: 'partner keys',
    setting: 'partnerKeysPerWallet',
    next: 'delete one you no longer use, then create the new one',
  },
  concurrentPays: {
    noun: 'pay calls in flight',
    setting: 'concurrentPaysPerUser',
    next: 'wait for one to finish and retry',
  },
}

export function quotaExceeded(quota: QuotaName, limit: number, used: number): BaseError {
  const w = what[quota]
  return new BaseError(
    'QUOTA_EXCEEDED',
    `${used} ${w.noun} already, the most this deployment allows (quotas.${w.setting} = ${limit}); ${w.next}`,
    {
      fields: { quota, limit, used },
    },
  )
}

/**
 * Per-user bounds (docs/hosting.md "Hosting safely"). Counts are read from the store just before the row
 * is written, without a lock: two creations racing on two replicas can both pass when one slot is
 * left, so a user may end up one or two over (never unbounded: each request sees the rows before
 * it). Pay calls in flight are counted in this process (a replica each).
 */
export function userQuotas(store: Store, settings: Partial<QuotaSettings> = {}) {
  const q = { ...DEFAULT_QUOTAS, ...settings }
  const { db } = store
  const n = async (query: { executeTakeFirst(): Promise<{ n: number | string | bigint } | undefined> }) =>
    Number((await query.executeTakeFirst())?.n ?? 0)
  const check = (quota: QuotaName, limit: number, used: number) => {
    if (used >= limit) throw quotaExceeded(quota, limit, used)
  }
  const paying = new Map<string, number>()
  return {
    settings: q,
    async agent(userId: string) {
      check(
        'agents',
        q.agentsPerUser,
        await n(
          db
            .selectFrom('platform_agents')
            .select((e) => e.fn.countAll<number>().as('n'))
            .where('user_id', '=', userId),
        ),
      )
    },
    async endpoint(userId: string) {
      check(
        'endpoints',
        q.endpointsPerUser,
        await n(
          db
            .selectFrom('platform_endpoints')
            .select((e) => e.fn.countAll<number>().as('n'))
            .where('user_id', '=', userId)
            .where('deleted_at', 'is', null),
        ),
      )
    },
    /** A webhook being added (on a new endpoint, or one that had none: `endpointId`). */
    async webhook(userId: string, endpointId?: string) {
      let s = db
        .selectFrom('platform_endpoints')
        .select((e) => e.fn.countAll<number>().as('n'))
        .where('user_id', '=', userId)
        .where('deleted_at', 'is', null)
        .where('webhook_url', 'is not', null)
      if (endpointId) s = s.where('id', '!=', endpointId)
      check('webhooks', q.webhooksPerUser, await n(s))
    },
    async userKey(userId: string) {
      check(
        'userKeys',
        q.userKeysPerUser,
        await n(
          db
            .selectFrom('platform_user_keys')
            .select((e) => e.fn.countAll<number>().as('n'))
            .where('user_id', '=', userId)
            .where('revoked_at', 'is', null),
        ),
      )
    },
    async agentKey(agentId: string) {
      check(
        'agentKeys',
        q.agentKeysPerAgent,
        await n(
          db
            .selectFrom('platform_agent_keys')
            .select((e) => e.fn.countAll<number>().as('n'))
            .where('agent_id', '=', agentId)
            .where('revoked_at', 'is', null),
        ),
      )
    },
    async partnerKey(wallet: string) {
      check(
        'partnerKeys',
        q.partnerKeysPerWallet,
        await n(
          db
            .selectFrom('partner_keys')
            .select((e) => e.fn.countAll<number>().as('n'))
            .where('owner_wallet', '=', wallet.toLowerCase())
            .where('state', '!=', 'deleted'),
        ),
      )
    },
    /** Runs one pay call of the user's, refused at once when it already has as many in flight as allowed. */
    async pay<T>(userId: string, fn: () => Promise<T>): Promise<T> {
      const inFlight = paying.get(userId) ?? 0
      check('concurrentPays', q.concurrentPaysPerUser, inFlight)
      paying.set(userId, inFlight + 1)
      try {
        return await fn()
      } finally {
        const left = (paying.get(userId) ?? 1) - 1
        if (left > 0) paying.set(userId, left)
        else paying.delete(userId)
      }
    },
  }
}

export type UserQuotas = ReturnType<typeof userQuotas>
