import type { Store } from '../../store/store.js'

/** What the daemon deployed or created on each embedded chain, by network then name (table `deployments`). */
export type DeploymentStore = {
  read(network: string): Promise<Record<string, string>>
  /** Records a network's whole deployment: names it no longer has are dropped. */
  write(network: string, addresses: Record<string, string>): Promise<void>
  readOne(network: string, name: string): Promise<string | undefined>
  writeOne(network: string, name: string, address: string): Promise<void>
}

/**
 * Deployments in the store. Writes are single statements rather than a transaction: on SQLite the
 * embedded Solana cluster writes the same file from its own connection while the chains start,
 * and a transaction held across awaits would make it wait on us.
 */
export function deploymentStore(store: Store): DeploymentStore {
  const { db } = store
  const upsert = (rows: { network: string; name: string; address: string }[]) =>
    db
      .insertInto('deployments')
      .values(rows)
      .onConflict((oc) =>
        oc.columns(['network', 'name']).doUpdateSet((eb) => ({ address: eb.ref('excluded.address') })),
      )
      .execute()
  return {
    async read(network) {
      const rows = await db
        .selectFrom('deployments')
        .select(['name', 'address'])
        .where('network', '=', network)
        .execute()
      return Object.fromEntries(rows.map((r) => [r.name, r.address]))
    },
    async write(network, addresses) {
      const names = Object.keys(addresses)
      if (names.length > 0) await upsert(names.map((name) => ({ network, name, address: addresses[name]! })))
      let stale = db.deleteFrom('deployments').where('network', '=', network)
      if (names.length > 0) stale = stale.where('name', 'not in', names)
      await stale.execute()
    },
    async readOne(network, name) {
      const r = await db
        .selectFrom('deployments')
        .select('address')
        .where('network', '=', network)
        .where('name', '=', name)
        .executeTakeFirst()
      return r?.address
    },
    writeOne: async (network, name, address) => void (await upsert([{ network, name, address }])),
  }
}
