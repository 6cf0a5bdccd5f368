import type { Store } from '../store/store.js'

export type StoredAttestation = { attestor: number; signer: string; statement: `0x${string}`; signature: `0x${string}` }

/** Attestations collected per order (xchain_attestations): a restart claims with them instead of asking again. */
export type AttestationStore = {
  save(orderId: string, a: StoredAttestation[]): Promise<void>
  of(orderId: string): Promise<StoredAttestation[]>
}

export function attestationStore(store: Store): AttestationStore {
  const { db } = store
  return {
    async save(orderId, list) {
      if (list.length === 0) return
      const t = Date.now()
      await db
        .insertInto('xchain_attestations')
        .values(
          list.map((a) => ({
            order_id: orderId,
            attestor: a.attestor,
            signer: a.signer,
            statement: a.statement,
            signature: a.signature,
            created_at: t,
          })),
        )
        .onConflict((oc) => oc.columns(['order_id', 'attestor']).doNothing())
        .execute()
    },
    async of(orderId) {
      const rows = await db
        .selectFrom('xchain_attestations')
        .selectAll()
        .where('order_id', '=', orderId)
        .orderBy('attestor')
        .execute()
      return rows.map((r) => ({
        attestor: r.attestor,
        signer: r.signer,
        statement: r.statement as `0x${string}`,
        signature: r.signature as `0x${string}`,
      }))
    },
  }
}
