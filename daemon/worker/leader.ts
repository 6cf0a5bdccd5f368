import type pg from 'pg'

/** Which process runs the worker duties (reconciliation, sweeps): exactly one at a time. */
export type Leadership = {
  isLeader(): boolean
  /** Stops campaigning; a leader releases the lock (its duties are stopped first). */
  stop(): Promise<void>
}

/** What a leader runs while it leads; the returned function stops it (leadership lost or shutdown). */
export type Duties = () => Promise<() => Promise<void>>

/** The one advisory lock key of parx's worker leadership (any 64-bit number unique to this use). */
export const WORKER_LOCK_KEY = 0x7061_7278_0001n // 'parx' + 1

export type PostgresLeadershipParameters = {
  url: string
  duties: Duties
  /**
   * How often a standby tries the lock and a leader checks its connection (default 1 s): the takeover time after a
   * leader dies.
   */
  pollMs?: number
  /**
   * How long a process that just won the lock waits before starting the duties (default `pollMs`).
   * The server frees a dead leader's lock the moment its connection ends, but the old leader (on a
   * connection dropped by the server, not a dead process) learns of it only on its socket's error
   * or its next check, within `pollMs`: until then both would run the duties.
   */
  graceMs?: number
  onChange?: (leading: boolean) => void
  onError?: (err: Error) => void
}

/**
 * Leadership through a PostgreSQL advisory lock held on a dedicated connection (not the pool's):
 * the server releases it when that connection ends, so when a leader dies (kill -9, network loss)
 * a standby's next `pg_try_advisory_lock` wins within `pollMs`. A leader that loses its
 * connection stops its duties at once and campaigns again.
 */
export function postgresLeadership(p: PostgresLeadershipParameters): Leadership {
  const pollMs = p.pollMs ?? 1_000
  const graceMs = p.graceMs ?? pollMs
  let client: pg.Client | undefined
  let stopDuties: (() => Promise<void>) | undefined
  let leading = false
  let stopped = false
  let timer: NodeJS.Timeout | undefined
  let attempt: Promise<void> = Promise.resolve()

  const lose = async () => {
    const c = client
    client = undefined
    if (leading) {
      leading = false
      p.onChange?.(false)
      const s = stopDuties
      stopDuties = undefined
      await s?.().catch((e: Error) => p.onError?.(e))
    }
    await c?.end().catch(() => {})
  }

  const tryLead = async () => {
    if (stopped) return
    try {
      // A leader checks its connection each round: a silently dead one means the lock is gone.
      if (leading) return void (await client!.query('SELECT 1'))
      if (!client) {
        // query_timeout: a leader's check that hangs (a connection lost without a close) counts as lost.
        // pg loads on the first campaign, so a daemon on SQLite never loads it.
        const { Client } = (await import('pg')).default
        const c = new Client({
          connectionString: p.url,
          connectionTimeoutMillis: 5_000,
          query_timeout: Math.max(2 * pollMs, 2_000),
          keepAlive: true,
        })
        // The lock lives and dies with this connection.
        c.on('error', (e) => {
          p.onError?.(e)
          if (client === c) void lose()
        })
        c.on('end', () => {
          if (client === c) void lose()
        })
        await c.connect()
        client = c
      }
      const r = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [
        WORKER_LOCK_KEY.toString(),
      ])
      if (r.rows[0]?.ok && !stopped) {
        await new Promise((resolve) => setTimeout(resolve, graceMs))
        // Still ours? (the connection may have died meanwhile, which frees the lock)
        const held = client
          ? await client.query('SELECT 1').then(
              () => true,
              () => false,
            )
          : false
        if (!held || stopped) return void (await lose())
        leading = true
        p.onChange?.(true)
        stopDuties = await p.duties()
      }
    } catch (e) {
      p.onError?.(e as Error)
      await lose()
    }
  }

  const loop = () => {
    if (stopped) return
    attempt = attempt.then(tryLead)
    timer = setTimeout(loop, pollMs)
    timer.unref()
  }
  loop()

  return {
    isLeader: () => leading,
    async stop() {
      stopped = true
      clearTimeout(timer)
      await attempt
      await lose()
    },
  }
}

/** On SQLite there is one process per data dir: it leads, as it always has. Duties start in the background. */
export function soleLeadership(duties: Duties, onError?: (err: Error) => void): Leadership {
  const started = duties().catch((e: Error) => {
    onError?.(e)
    return async () => {}
  })
  return { isLeader: () => true, stop: async () => (await started)() }
}
