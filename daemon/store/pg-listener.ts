import type pg from 'pg'

export type PgListenerParameters = {
  /** The PostgreSQL store's URL: LISTEN needs a connection of its own, outside the pool. */
  url: string
  channel: string
  onNotify(payload: string | undefined): void
  /**
   * Called each time the LISTEN is (re)established: what was announced while nobody listened is
   * lost, so the caller catches up from the store here.
   */
  onListening(): void
  onError?(e: Error): void
  retryMs?: number
}

export type PgListener = { stop(): Promise<void> }

/**
 * LISTEN on one channel over a dedicated connection that comes back by itself: a dropped or
 * failed connection is replaced after `retryMs` until `stop()`. Shared by the replicas'
 * announcements (partner key changes, cross-chain order wakes).
 */
export function pgListener(p: PgListenerParameters): PgListener {
  const retryMs = p.retryMs ?? 2_000
  let client: pg.Client | undefined
  let stopped = false
  let timer: NodeJS.Timeout | undefined
  let connected: Promise<void> = Promise.resolve()

  const drop = (c: pg.Client) => {
    if (client !== c) return
    client = undefined
    void c.end().catch(() => {})
    if (!stopped) timer = setTimeout(() => void (connected = listen()), retryMs)
  }
  const listen = async () => {
    if (stopped) return
    // pg loads on the first connection, so a daemon on SQLite never loads it.
    const { Client } = (await import('pg')).default
    if (stopped) return
    const c = new Client({ connectionString: p.url, connectionTimeoutMillis: 5_000 })
    c.on('error', (e) => {
      p.onError?.(e)
      drop(c)
    })
    c.on('end', () => drop(c))
    c.on('notification', (n) => {
      if (n.channel === p.channel) p.onNotify(n.payload)
    })
    client = c
    try {
      await c.connect()
      await c.query(`LISTEN ${p.channel}`)
      p.onListening()
    } catch (e) {
      p.onError?.(e as Error)
      drop(c)
    }
  }
  connected = listen()

  return {
    async stop() {
      stopped = true
      clearTimeout(timer)
      await connected
      const c = client
      client = undefined
      await c?.end().catch(() => {})
    },
  }
}
