import { afterAll, vi } from 'vitest'

/**
 * Setup file of every project, whose files share one process per worker (`isolate: false`;
 * vitest runs a setup file again before every file): each file ends with the process as
 * the worker started, as the next file would find it in a fork of its own. vitest itself restores
 * `vi.spyOn` spies between files.
 */
const FIRST = Symbol.for('parx.test.processAtStart')

type ProcessAtStart = { Request: typeof Request; Response: typeof Response; env: NodeJS.ProcessEnv }

const g = globalThis as { [FIRST]?: ProcessAtStart }
const first = (g[FIRST] ??= { Request: globalThis.Request, Response: globalThis.Response, env: { ...process.env } })

afterAll(() => {
  vi.useRealTimers()
  vi.unstubAllGlobals()
  vi.unstubAllEnvs()
  // @hono/node-server's serve() puts its own lighter Request and Response on globalThis. A header
  // set on one of its Responses after the handler (Cache-Control: no-store) is not kept once the
  // body is read, so a later file's in-process `app.request` would see answers other than in a fork.
  for (const name of ['Request', 'Response'] as const) {
    if (globalThis[name] !== first[name]) {
      Object.defineProperty(globalThis, name, { value: first[name], writable: true, configurable: true })
    }
  }
  // vitest's own (VITEST_WORKER_ID, ...) it sets again for each file.
  for (const key of Object.keys(process.env)) {
    if (!key.startsWith('VITEST') && !(key in first.env)) delete process.env[key]
  }
  for (const [key, value] of Object.entries(first.env)) if (!key.startsWith('VITEST')) process.env[key] = value
})
