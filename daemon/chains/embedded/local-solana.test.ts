import { TOKEN_PROGRAM_ID } from '@solana/spl-token'
import { Connection, Keypair } from '@solana/web3.js'
import { afterAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { networks } from '../../../src/networks/registry.js'
import { fromFile, loadOrCreateKeyFile } from '../../keys/service-keys.js'
import { tempDir } from '../../solana-rpc/testing.js'
import { openStore } from '../../store/store.js'
import { deploymentStore } from './deployments.js'
import { type LocalSolana, startLocalSolana } from './local-solana.js'

const dir = tempDir()
const store = await openStore({ file: `${dir.dir}/parx.db` })
afterAll(async () => {
  await store.close()
  dir.remove()
})
const keys = fromFile(loadOrCreateKeyFile(dir.dir))
const never = new Promise<void>(() => {})
const start = (p: { keys?: typeof keys; buildAfter?: Promise<unknown> } = {}) =>
  startLocalSolana({
    spec: networks['local-solana']!,
    host: '127.0.0.1',
    chainDbFile: `${dir.dir}/parx.db`,
    deployments: deploymentStore(store),
    keys: p.keys ?? keys,
    buildAfter: p.buildAfter,
  })
const addresses = (s: LocalSolana) => ({
  mints: Object.fromEntries(Object.values(s.chain.mints).map((m) => [m.symbol, m.mint.toBase58()])),
  originSettler: s.programs.originSettler.toBase58(),
  destSettler: s.programs.destSettler.toBase58(),
})

/** One JSON-RPC exchange over the cluster's websocket, opened while nothing has built it yet. */
async function slotSubscribe(wsUrl: string): Promise<{ subscription: number; notified: number }> {
  const ws = new WebSocket(wsUrl)
  try {
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject))
    const messages: Array<{ id?: number; result?: number; params?: { result: { slot: number } } }> = []
    const next = () =>
      new Promise<(typeof messages)[number]>((resolve) => ws.once('message', (d) => resolve(JSON.parse(String(d)))))
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'slotSubscribe', params: [] }))
    const answer = await next()
    const notification = await next()
    return { subscription: answer.result!, notified: notification.params!.result.slot }
  } finally {
    ws.close()
  }
}

describe('the embedded cluster on a restart', () => {
  let first: { mints: Record<string, string>; originSettler: string; destSettler: string }

  it('a first start builds LiteSVM before it returns: the mints and programs are made then', async () => {
    const s = await start({ buildAfter: never })
    try {
      expect(s.built()).toBe(true)
      first = addresses(s)
      expect(Object.keys(first.mints).length).toBeGreaterThan(0)
    } finally {
      await s.stop()
    }
  })

  it('serves the recorded addresses at once and builds LiteSVM only at the first request', async () => {
    const s = await start({ buildAfter: never })
    try {
      expect(s.built()).toBe(false)
      expect(addresses(s)).toEqual(first)
      // A websocket client that connects before the build is held, then served.
      const sub = await slotSubscribe(s.chain.wsUrl)
      expect(sub.subscription).toBeGreaterThanOrEqual(0)
      expect(sub.notified).toBeGreaterThan(0)
      expect(s.built()).toBe(true)
      const solver = Keypair.fromSecretKey(keys.solanaSolver).publicKey
      expect(await new Connection(s.chain.rpcUrl, 'confirmed').getBalance(solver)).toBeGreaterThan(0)
    } finally {
      await s.stop()
    }
  })

  it('an HTTP request and the in-process reads build it too, and see the saved chain', async () => {
    const s = await start({ buildAfter: never })
    try {
      const r = await fetch(s.chain.rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'getAccountInfo',
          params: [first.mints.USDC, { encoding: 'base64' }],
        }),
      })
      const body = (await r.json()) as { result: { value: { owner: string } | null } }
      expect(body.result.value?.owner).toBe(TOKEN_PROGRAM_ID.toBase58())
      expect(s.built()).toBe(true)
      expect(await s.chain.reads.blockHeight('confirmed')).toBeGreaterThan(0)
    } finally {
      await s.stop()
    }
  })

  it('builds once its ready signal comes', async () => {
    let ready!: () => void
    const s = await start({ buildAfter: new Promise<void>((resolve) => (ready = resolve)) })
    try {
      expect(s.built()).toBe(false)
      ready()
      await (await s.svm()).latestBlockhash()
      expect(s.built()).toBe(true)
    } finally {
      await s.stop()
    }
  })

  it('builds at once when the saved chain no longer matches what is recorded (new attestor keys move origin_settler)', async () => {
    const other = {
      ...keys,
      solanaAttestors: keys.solanaAttestors.map(() => Keypair.generate().secretKey) as typeof keys.solanaAttestors,
    }
    const s = await start({ keys: other, buildAfter: never })
    try {
      expect(s.built()).toBe(true)
      expect(addresses(s).mints).toEqual(first.mints)
      expect(addresses(s).originSettler).not.toBe(first.originSettler)
    } finally {
      await s.stop()
    }
  })
})
