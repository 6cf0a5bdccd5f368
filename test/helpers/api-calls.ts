/** One JSON call to a daemon's API over HTTP, answering status and parsed body (tests read both). */
export async function call(
  api: string,
  path: string,
  init: { body?: unknown; headers?: Record<string, string>; method?: string } = {},
) {
  const res = await fetch(`${api}${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: { 'content-type': 'application/json', ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  })
  return { status: res.status, body: (await res.json()) as any }
}

/** Reads until `ok` holds, every 100 ms, or throws naming `what` and the last value. */
export async function until<T>(
  read: () => Promise<T>,
  ok: (v: T) => boolean,
  what: string,
  timeoutMs = 60_000,
): Promise<T> {
  const end = Date.now() + timeoutMs
  for (;;) {
    const v = await read()
    if (ok(v)) return v
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(v)}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}
