import { randomUUID } from 'node:crypto'
import type { Selectable } from 'kysely'
import type { Endpoint } from '../../src/sdk/platform/endpoints.js'
import type { Store } from '../store/store.js'
import type { PlatformEndpointsTable } from '../store/tables/platform.js'

export type EndpointRow = Selectable<PlatformEndpointsTable>

/** Seller endpoints in the store; a user sees only its own, and a deleted one is gone for everyone. */
export function endpointStore(store: Store) {
  const { db } = store
  const live = () => db.selectFrom('platform_endpoints').selectAll().where('deleted_at', 'is', null)
  return {
    async create(p: Omit<EndpointRow, 'id' | 'created_at' | 'deleted_at'>): Promise<EndpointRow> {
      const row: EndpointRow = { ...p, id: randomUUID(), created_at: Date.now(), deleted_at: null }
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
    async remove(userId: string, id: string): Promise<boolean> {
      const r = await db.updateTable('platform_endpoints').set({ deleted_at: Date.now() })
        .where('id', '=', id).where('user_id', '=', userId).where('deleted_at', 'is', null).executeTakeFirst()
      return Number(r.numUpdatedRows) > 0
    },
  }
}

export type EndpointStore = ReturnType<typeof endpointStore>

export function endpointView(e: EndpointRow, platformUrl: string): Endpoint {
  return {
    id: e.id, name: e.name, url: `${platformUrl}/paid/${e.id}`, upstreamUrl: e.upstream_url, price: e.price, network: e.network, token: e.token,
    payTo: e.pay_to as Endpoint['payTo'], payToAgentId: e.pay_to_agent_id, createdAt: new Date(Number(e.created_at)).toISOString(),
  }
}
