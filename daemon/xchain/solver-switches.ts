import type { Store } from '../store/store.js'

export type Paused = { deliveries: boolean; claims: boolean }

/**
 * The solver's operator switches and liveness, in the store so every process sees them: a pause
 * asked of any API replica reaches the leader's worker, and a heartbeat from any replica reports
 * the leader's last pass.
 */
export type SolverSwitches = {
  paused(): Promise<Paused>
  setPaused(p: Paused): Promise<void>
  passed(at: number): Promise<void>
  lastPassAt(): Promise<number | null>
}

export function solverSwitches(store: Store): SolverSwitches {
  const { db } = store
  const put = async (name: string, value: string) => {
    const t = Date.now()
    await db
      .insertInto('xchain_solver')
      .values({ name, value, updated_at: t })
      .onConflict((oc) => oc.column('name').doUpdateSet({ value, updated_at: t }))
      .execute()
  }
  const read = async (name: string) =>
    (await db.selectFrom('xchain_solver').select('value').where('name', '=', name).executeTakeFirst())?.value
  return {
    async paused() {
      const v = await read('paused')
      return v ? (JSON.parse(v) as Paused) : { deliveries: false, claims: false }
    },
    setPaused: (p) => put('paused', JSON.stringify(p)),
    passed: (at) => put('last_pass_at', String(at)),
    async lastPassAt() {
      const v = await read('last_pass_at')
      return v ? Number(v) : null
    },
  }
}
