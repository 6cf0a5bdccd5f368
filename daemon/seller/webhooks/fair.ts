/** How many deliveries run at once: per tenant, in all, and how long one may hold its slot. */
export type FairShares = { perTenant: number; total: number; batch: number; slotMs: number }

/**
 * Deliveries shared out between tenants (the users owning the endpoints): each tenant has at most
 * `perTenant` attempts in flight, all tenants `total`, and an attempt frees its slot when it ends
 * or after `slotMs`, whichever is first. A tenant whose receivers hang uses up its own slots only;
 * every other tenant's events keep going out at once, because a batch is fetched leaving the busy
 * tenants out and a freed slot starts the next event straight away (no batch waits for its slowest).
 */
export function fairShares<R extends { id: string; tenant: string }>(
  p: FairShares & {
    /** Due rows, oldest first, leaving out `busy` tenants. */
    due(busy: string[], limit: number): Promise<R[]>
    run(row: R): Promise<void>
    /** A slot came free: look for more work. */
    freed(): void
  },
) {
  const perTenant = new Map<string, number>()
  const active = new Map<string, Promise<void>>()
  const release = (row: R) => {
    if (!active.delete(row.id)) return
    const left = (perTenant.get(row.tenant) ?? 1) - 1
    if (left > 0) perTenant.set(row.tenant, left)
    else perTenant.delete(row.tenant)
    p.freed()
  }
  const start = (row: R) => {
    perTenant.set(row.tenant, (perTenant.get(row.tenant) ?? 0) + 1)
    let timer: NodeJS.Timeout | undefined
    const slot = Promise.race([
      // run reports its own failures; a rejection here must not leave the slot's promise rejected.
      p.run(row).catch(() => {}),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, p.slotMs)
        timer.unref()
      }),
    ]).finally(() => {
      clearTimeout(timer)
      release(row)
    })
    active.set(row.id, slot)
  }
  return {
    /** Starts what the free slots allow; returns once started (not once delivered). */
    async fill(): Promise<void> {
      for (;;) {
        if (active.size >= p.total) return
        const busy = [...perTenant].filter(([, n]) => n >= p.perTenant).map(([t]) => t)
        const rows = await p.due(busy, p.batch)
        let started = 0
        for (const row of rows) {
          if (active.size >= p.total) break
          if (active.has(row.id) || (perTenant.get(row.tenant) ?? 0) >= p.perTenant) continue
          start(row)
          started++
        }
        if (started === 0 || rows.length < p.batch) return
      }
    },
    /** Every attempt in flight, ended. */
    settled: () => Promise.all([...active.values()]).then(() => {}),
    inFlight: () => active.size,
  }
}
