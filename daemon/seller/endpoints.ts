import { randomUUID } from 'node:crypto'
import type { Selectable } from 'kysely'
import type { Endpoint } from '../../src/sdk/platform/endpoints.js'
import type { Store } from '../store/store.js'
import type { PlatformEndpointsTable } from '../store/tables/platform.js'

export type EndpointRow = Selectable<PlatformEndpointsTable>

/** What a seller may change after creation (POST /api/endpoints/:id). */
export type EndpointChange = Partial<
  Pick<EndpointRow, 'discoverable' | 'description' | 'webhook_url' | 'webhook_secret'>
>

/** The bazaar's filters over discoverable endpoints (network keys, checksummed payTo). */
export type DiscoverableQuery = { networks?: string[]; payTo?: string; limit: number; offset: number }

/** Seller endpoints in the store; a user sees only its own, and a deleted one is gone for everyone. */
export function endpointStore(store: Store) {
  const { db } = store
  const live = () => db.selectFrom('platform_endpoints').selectAll().where('deleted_at', 'is', null)
  const listed = (q: Omit<DiscoverableQuery, 'limit' | 'offset'>) => {
    let s = db.selectFrom('platform_endpoints').where('deleted_at', 'is', null).where('discoverable', '=', 1)
    if (q.networks) s = s.where('network', 'in', q.networks.length ? q.networks : ['-'])
    if (q.payTo) s = s.where('pay_to', '=', q.payTo)
    return s
  }
  return {
    /** `id` is chosen by the caller when something (the webhook secret's seal) is bound to it first. */
    async create(
      p: Omit<EndpointRow, 'id' | 'created_at' | 'deleted_at' | 'updated_at' | 'batch_settlement' | 'auth_capture'> & {
        id?: string
        batch_settlement?: number
        auth_capture?: number
      },
    ): Promise<EndpointRow> {
      const row: EndpointRow = {
        ...p,
        id: p.id ?? randomUUID(),
        created_at: Date.now(),
        deleted_at: null,
        updated_at: null,
        batch_settlement: p.batch_settlement ?? 0,
        auth_capture: p.auth_capture ?? 0,
      }
      await db.insertInto('platform_endpoints').values(row).execute()
      return row
    },
    /** A live endpoint by id, whoever owns it (the paid URL). */
    served: (id: string) => live().where('id', '=', id).executeTakeFirst(),
    owned: (userId: string, id: string) => live().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst(),
    list: (userId: string) => live().where('user_id', '=', userId).orderBy('created_at').orderBy('id').execute(),
    async count(userId: string): Promise<number> {
      return (await live().where('user_id', '=', userId).execute()).length
    },
    /** The owner's live endpoint after the change, or undefined when it is not theirs (or gone). */
    async update(userId: string, id: string, change: EndpointChange): Promise<EndpointRow | undefined> {
      await db
        .updateTable('platform_endpoints')
        .set({ ...change, updated_at: Date.now() })
        .where('id', '=', id)
        .where('user_id', '=', userId)
        .where('deleted_at', 'is', null)
        .execute()
      return live().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst()
    },
    async remove(userId: string, id: string): Promise<boolean> {
      const r = await db
        .updateTable('platform_endpoints')
        .set({ deleted_at: Date.now() })
        .where('id', '=', id)
        .where('user_id', '=', userId)
        .where('deleted_at', 'is', null)
        .executeTakeFirst()
      return Number(r.numUpdatedRows) > 0
    },
    /**
     * One page of the endpoints listed in the bazaar, oldest first (a stable order for offset paging), and how many
     * match.
     */
    async discoverable(q: DiscoverableQuery): Promise<{ rows: EndpointRow[]; total: number }> {
      const [rows, total] = await Promise.all([
        listed(q).selectAll().orderBy('created_at').orderBy('id').limit(q.limit).offset(q.offset).execute(),
        listed(q)
          .select((e) => e.fn.countAll().as('n'))
          .executeTakeFirstOrThrow(),
      ])
      return { rows, total: Number(total.n) }
    },
  }
}

export type EndpointStore = ReturnType<typeof endpointStore>

export function endpointView(e: EndpointRow, platformUrl: string): Endpoint {
  return {
    id: e.id,
    name: e.name,
    url: paidUrl(platformUrl, e.id),
    upstreamUrl: e.upstream_url,
    price: e.price,
    network: e.network,
    token: e.token,
    payTo: e.pay_to as Endpoint['payTo'],
    payToAgentId: e.pay_to_agent_id,
    createdAt: new Date(Number(e.created_at)).toISOString(),
    discoverable: Number(e.discoverable) === 1,
    description: e.description ?? null,
    webhookUrl: e.webhook_url ?? null,
    batchSettlement: Number(e.batch_settlement ?? 0) === 1,
    authCapture: Number(e.auth_capture ?? 0) === 1,
  }
}

export const paidUrl = (platformUrl: string, id: string) => `${platformUrl}/paid/${id}`
