import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Daemon, startDaemon } from '../../daemon/main.js'
import { loadConfig } from '../../src/config/load.js'
import { type CallOptions, callJson } from '../../src/sdk/http.js'
import { testStoreUrl } from './store.js'

export type TestDaemon = Daemon & {
  dataDir: string
  /** JSON call to the daemon's API; throws ApiError on 4xx/5xx. */
  call<T = any>(path: string, opts?: CallOptions): Promise<T>
  /** Raw fetch against the API, for asserting statuses and bodies of failures. */
  raw(path: string, init?: RequestInit): Promise<{ status: number; body: any; headers: Headers }>
  /** A fresh active partner key, created over the operator route. */
  partnerKey(): Promise<string>
  operatorHeaders(): Record<string, string>
  /** Stops the daemon and, unless kept, removes its data dir. */
  close(opts?: { keepData?: boolean }): Promise<void>
}

const storeUrls = new Map<string, string | undefined>()

/** Starts a real daemon in-process (local profile unless `env`/`file` say otherwise): free ports, temp data dir. */
export async function startTestDaemon(
  opts: {
    dataDir?: string
    flags?: Record<string, unknown>
    file?: Record<string, unknown>
    env?: NodeJS.ProcessEnv
  } = {},
): Promise<TestDaemon> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'parx-test-'))
  // On the postgres test project each data dir gets its own database, found again on a restart.
  let storeUrl = storeUrls.get(dataDir)
  if (!storeUrl && !opts.flags?.store && !opts.file?.store) storeUrls.set(dataDir, (storeUrl = await testStoreUrl()))
  const config = loadConfig({
    env: opts.env ?? {},
    file: opts.file ?? {},
    flags: {
      port: 0,
      dataDir,
      logLevel: 'warn',
      bundler: { prestart: false },
      ...(storeUrl ? { store: { url: storeUrl } } : {}),
      ...opts.flags,
    },
  })
  const daemon = await startDaemon(config)
  const api = daemon.urls.api
  const operatorHeaders = () => ({ authorization: `Bearer ${daemon.services.keys.operatorToken}` })
  return {
    ...daemon,
    dataDir,
    call: (path, o) => callJson(api, path, o),
    async raw(path, init) {
      const res = await fetch(`${api}${path}`, init)
      const text = await res.text()
      let body: unknown = text
      try {
        body = JSON.parse(text)
      } catch {}
      return { status: res.status, body, headers: res.headers }
    },
    async partnerKey() {
      const r = await callJson<{ key: string }>(api, '/api/operator/keys', {
        body: { name: 'test', owner: '0x00000000000000000000000000000000000000aa' },
        headers: operatorHeaders(),
      })
      return r.key
    },
    operatorHeaders,
    async close(o) {
      await daemon.stop()
      if (!o?.keepData) rmSync(dataDir, { recursive: true, force: true })
    },
  }
}
