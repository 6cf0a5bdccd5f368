import { randomUUID } from 'node:crypto'
import type { Selectable } from 'kysely'
import { type Address, getAddress, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { BaseError } from '../../src/errors/base.js'
import { hashPlatformKey, maskPlatformKey, newPlatformKey } from '../../src/sdk/platform/keys.js'
import { type AgentRow, agentBudget, type UserRow } from '../buyer/budget-store.js'
import type { Budget } from '../buyer/budgets.js'
import type { LimitPolicy } from '../buyer/limits.js'
import type { Store } from '../store/store.js'
import type { PlatformAgentKeysTable } from '../store/tables/platform.js'
import type { WalletSeal } from './wallet-seal.js'

export type { AgentRow, UserRow }
export type AgentKeyRow = Selectable<PlatformAgentKeysTable>

/** Whose a key is, once looked up; undefined for an unknown or revoked key. */
export type KeyOwner = { kind: 'user'; userId: string } | { kind: 'agent'; agentId: string; keyId: string }

/**
 * The platform's rows: users and their keys, agents (wallet key sealed) and their keys, limits.
 * Keys are stored as SHA-256 only; the plaintext is returned once by the create calls.
 */
export type PlatformStore = {
  createUser(p: { wallet?: Address; name?: string }): Promise<{ user: UserRow; userKey: string }>
  userByWallet(wallet: Address): Promise<UserRow | undefined>
  user(id: string): Promise<UserRow | undefined>
  countAgents(userId: string): Promise<number>
  /** The owner of a user or agent key, if it is known and not revoked; marks an agent key used. */
  keyOwner(key: string, kind: 'user' | 'agent'): Promise<KeyOwner | undefined>
  /** `limits`: what the agent starts with (the deployment's new-agent limits); none when left out. */
  createAgent(p: {
    userId: string
    name: string
    network: string
    limits?: Pick<LimitPolicy, 'perPaymentUsd' | 'dailyUsd'>
  }): Promise<AgentRow>
  agent(id: string): Promise<AgentRow | undefined>
  /** Whether an address is one of the platform's agent wallets (what the paymaster sponsors). */
  isAgentWallet(address: string): Promise<boolean>
  agents(userId: string): Promise<AgentRow[]>
  /** The agent's wallet key, opened for signing. Never returned by a route or logged. */
  walletKey(agent: AgentRow): Hex
  setLimits(agentId: string, patch: Partial<LimitPolicy> & { approveAboveUsd?: string | null }): Promise<AgentRow>
  /** The user's budgets across all its agents (same rule: left out stays, null clears). */
  setUserLimits(userId: string, patch: Partial<Budget>): Promise<UserRow>
  /**
   * Freezes (keeping the first freeze's time when already frozen) or unfreezes agents: one agent,
   * or every agent of a user in one statement. On PostgreSQL the update waits for the row lock a
   * reservation holds (daemon/buyer/freeze.ts). Returns the agents as they now are.
   */
  setFrozen(target: { agentId: string } | { userId: string }, frozen: boolean): Promise<AgentRow[]>
  createAgentKey(agentId: string, label?: string): Promise<{ key: AgentKeyRow; agentKey: string }>
  agentKeys(agentId: string): Promise<AgentKeyRow[]>
  agentKey(agentId: string, keyId: string): Promise<AgentKeyRow | undefined>
  /** Sets revoked_at once; a second call leaves the first time. */
  revokeAgentKey(agentId: string, keyId: string): Promise<AgentKeyRow | undefined>
}

export function policyOf(a: AgentRow): LimitPolicy {
  return {
    ...agentBudget(a),
    allowedHosts: a.allowed_hosts === null ? null : (JSON.parse(a.allowed_hosts) as string[]),
  }
}

/** A limits patch as columns: a field left out stays as it is, null clears it. */
function budgetColumns(
  patch: Partial<Budget>,
): Partial<Record<'per_payment_usd' | 'hourly_usd' | 'daily_usd' | 'weekly_usd' | 'monthly_usd', string | null>> {
  const set: ReturnType<typeof budgetColumns> = {}
  if (patch.perPaymentUsd !== undefined) set.per_payment_usd = patch.perPaymentUsd
  if (patch.hourlyUsd !== undefined) set.hourly_usd = patch.hourlyUsd
  if (patch.dailyUsd !== undefined) set.daily_usd = patch.dailyUsd
  if (patch.weeklyUsd !== undefined) set.weekly_usd = patch.weeklyUsd
  if (patch.monthlyUsd !== undefined) set.monthly_usd = patch.monthlyUsd
  return set
}

/** Agent keys in use are marked at most once a minute: a write per request would serialise the store. */
const LAST_USED_RESOLUTION_MS = 60_000

export function platformStore(store: Store, seal: WalletSeal | undefined): PlatformStore {
  const { db } = store
  const agent = (id: string) => db.selectFrom('platform_agents').selectAll().where('id', '=', id).executeTakeFirst()
  const agentKey = (agentId: string, keyId: string) =>
    db
      .selectFrom('platform_agent_keys')
      .selectAll()
      .where('agent_id', '=', agentId)
      .where('id', '=', keyId)
      .executeTakeFirst()
  const needSeal = (): WalletSeal => {
    if (!seal) throw new BaseError('WALLET_KEY_UNAVAILABLE', 'no platform wallet key')
    return seal
  }
  return {
    async createUser(p) {
      const user: UserRow = {
        id: randomUUID(),
        wallet: p.wallet ?? null,
        name: p.name ?? null,
        created_at: Date.now(),
        per_payment_usd: null,
        hourly_usd: null,
        daily_usd: null,
        weekly_usd: null,
        monthly_usd: null,
      }
      const userKey = newPlatformKey('user')
      await db.transaction().execute(async (tx) => {
        await tx.insertInto('platform_users').values(user).execute()
        await tx
          .insertInto('platform_user_keys')
          .values({
            id: randomUUID(),
            user_id: user.id,
            key_hash: hashPlatformKey(userKey),
            hint: maskPlatformKey(userKey),
            created_at: user.created_at,
            revoked_at: null,
          })
          .execute()
      })
      return { user, userKey }
    },
    userByWallet: (wallet) =>
      db.selectFrom('platform_users').selectAll().where('wallet', '=', wallet).executeTakeFirst(),
    user: (id) => db.selectFrom('platform_users').selectAll().where('id', '=', id).executeTakeFirst(),
    async countAgents(userId) {
      const r = await db
        .selectFrom('platform_agents')
        .select((e) => e.fn.countAll<number | string>().as('n'))
        .where('user_id', '=', userId)
        .executeTakeFirst()
      return Number(r?.n ?? 0)
    },
    async keyOwner(key, kind) {
      const hash = hashPlatformKey(key)
      if (kind === 'user') {
        const r = await db
          .selectFrom('platform_user_keys')
          .select(['user_id', 'revoked_at'])
          .where('key_hash', '=', hash)
          .executeTakeFirst()
        return r && r.revoked_at === null ? { kind: 'user', userId: r.user_id } : undefined
      }
      const r = await db
        .selectFrom('platform_agent_keys')
        .select(['id', 'agent_id', 'revoked_at', 'last_used_at'])
        .where('key_hash', '=', hash)
        .executeTakeFirst()
      if (!r || r.revoked_at !== null) return undefined
      const now = Date.now()
      if (r.last_used_at === null || now - Number(r.last_used_at) > LAST_USED_RESOLUTION_MS) {
        await db.updateTable('platform_agent_keys').set({ last_used_at: now }).where('id', '=', r.id).execute()
      }
      return { kind: 'agent', agentId: r.agent_id, keyId: r.id }
    },
    async createAgent(p) {
      const s = needSeal()
      const id = randomUUID()
      const pk = generatePrivateKey()
      const row: AgentRow = {
        id,
        user_id: p.userId,
        name: p.name,
        network: p.network,
        address: privateKeyToAccount(pk).address,
        wallet_sealed: s.seal(id, pk),
        per_payment_usd: p.limits?.perPaymentUsd ?? null,
        daily_usd: p.limits?.dailyUsd ?? null,
        hourly_usd: null,
        weekly_usd: null,
        monthly_usd: null,
        allowed_hosts: null,
        created_at: Date.now(),
        frozen_at: null,
        approve_above_usd: null,
      }
      await db.insertInto('platform_agents').values(row).execute()
      return row
    },
    agent,
    isAgentWallet: async (address) =>
      !!(await db
        .selectFrom('platform_agents')
        .select('id')
        .where('address', '=', getAddress(address))
        .executeTakeFirst()),
    agents: (userId) =>
      db
        .selectFrom('platform_agents')
        .selectAll()
        .where('user_id', '=', userId)
        .orderBy('created_at')
        .orderBy('id')
        .execute(),
    walletKey: (a) => needSeal().open(a.id, a.wallet_sealed),
    async setLimits(agentId, patch) {
      const set: Partial<AgentRow> = budgetColumns(patch)
      if (patch.approveAboveUsd !== undefined) set.approve_above_usd = patch.approveAboveUsd
      if (patch.allowedHosts !== undefined)
        set.allowed_hosts = patch.allowedHosts === null ? null : JSON.stringify(patch.allowedHosts)
      if (Object.keys(set).length) await db.updateTable('platform_agents').set(set).where('id', '=', agentId).execute()
      return (await agent(agentId))!
    },
    async setUserLimits(userId, patch) {
      const set = budgetColumns(patch)
      if (Object.keys(set).length) await db.updateTable('platform_users').set(set).where('id', '=', userId).execute()
      return (await db.selectFrom('platform_users').selectAll().where('id', '=', userId).executeTakeFirst())!
    },
    async setFrozen(target, frozen) {
      let q = db.updateTable('platform_agents').set({ frozen_at: frozen ? Date.now() : null })
      q = 'agentId' in target ? q.where('id', '=', target.agentId) : q.where('user_id', '=', target.userId)
      await (frozen ? q.where('frozen_at', 'is', null) : q).execute()
      let r = db.selectFrom('platform_agents').selectAll()
      r = 'agentId' in target ? r.where('id', '=', target.agentId) : r.where('user_id', '=', target.userId)
      return r.orderBy('created_at').orderBy('id').execute()
    },
    async createAgentKey(agentId, label) {
      const agentKey = newPlatformKey('agent')
      const key: AgentKeyRow = {
        id: randomUUID(),
        agent_id: agentId,
        key_hash: hashPlatformKey(agentKey),
        hint: maskPlatformKey(agentKey),
        label: label ?? null,
        created_at: Date.now(),
        last_used_at: null,
        revoked_at: null,
      }
      await db.insertInto('platform_agent_keys').values(key).execute()
      return { key, agentKey }
    },
    agentKeys: (agentId) =>
      db
        .selectFrom('platform_agent_keys')
        .selectAll()
        .where('agent_id', '=', agentId)
        .orderBy('created_at')
        .orderBy('id')
        .execute(),
    agentKey,
    async revokeAgentKey(agentId, keyId) {
      await db
        .updateTable('platform_agent_keys')
        .set({ revoked_at: Date.now() })
        .where('agent_id', '=', agentId)
        .where('id', '=', keyId)
        .where('revoked_at', 'is', null)
        .execute()
      return agentKey(agentId, keyId)
    },
  }
}
