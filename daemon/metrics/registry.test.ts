import pino from 'pino'
import { afterEach, describe, expect, it } from 'vitest'
import { BaseError } from '../../src/errors/index.js'
import type { Payment } from '../../src/sdk/x402/wire.js'
import { parseScrape } from '../../test/helpers/prometheus.js'
import type { PlatformService } from '../platform/service.js'
import { openStore, type Store } from '../store/store.js'
import { boundedLabel } from './bounded-label.js'
import { instrumentFacilitator } from './facilitator.js'
import { instrumentPlatform } from './platform.js'
import { createMetrics } from './registry.js'

const stores: Store[] = []
afterEach(async () => void (await Promise.all(stores.splice(0).map((s) => s.close()))))
const log = pino({ level: 'silent' })
const payment = (network: string, scheme = 'exact') =>
  ({ version: 2, scheme, network, payload: {}, requirements: {} }) as unknown as Payment

describe('metrics', () => {
  it('off: records nothing and the scrape is NOT_FOUND', async () => {
    const m = createMetrics({ enabled: false })
    expect([m.http, m.facilitator, m.swap, m.platform]).toEqual([undefined, undefined, undefined, undefined])
    await expect(m.scrape()).rejects.toMatchObject({ code: 'NOT_FOUND' })
  })

  it('each daemon has its own registry', async () => {
    const a = createMetrics({ enabled: true })
    const b = createMetrics({ enabled: true })
    a.swap!.relay('accepted')
    expect(parseScrape((await a.scrape()).body).samples('parx_swap_relays_total')).toEqual([
      { labels: { outcome: 'accepted' }, value: 1 },
    ])
    expect(parseScrape((await b.scrape()).body).samples('parx_swap_relays_total')).toEqual([])
  })

  it('times verify and settle by network, scheme and outcome; a throw is `error`', async () => {
    const m = createMetrics({ enabled: true })
    let settle: () => Promise<unknown> = async () => ({ success: true, transaction: '0x1', network: 'n' })
    const f = instrumentFacilitator(
      {
        verify: async (p: Payment) => ({ isValid: p.network === 'good' }),
        settle: async (_p: Payment) => (await settle()) as never,
        extra: 1,
      },
      m.facilitator!,
    )
    expect(f.extra).toBe(1)
    await f.verify(payment('good'))
    await f.verify(payment('bad'))
    await f.settle(payment('good'))
    settle = async () => ({ success: false, errorReason: 'settlement_pending', transaction: '0x2', network: 'n' })
    await f.settle(payment('good'))
    settle = async () => {
      throw new Error('rpc down')
    }
    await expect(f.settle(payment('good', 'upto'))).rejects.toThrow('rpc down')
    m.facilitator!.batch('local-base', 3)
    const s = parseScrape((await m.scrape()).body)
    expect(s.families.get('parx_facilitator_request_duration_seconds')?.type).toBe('HISTOGRAM')
    const counts = s
      .samples('parx_facilitator_request_duration_seconds_count')
      .map((x) => [x.labels.operation, x.labels.network, x.labels.scheme, x.labels.outcome, x.value])
    expect(counts).toEqual(
      expect.arrayContaining([
        ['verify', 'good', 'exact', 'valid', 1],
        ['verify', 'bad', 'exact', 'invalid', 1],
        ['settle', 'good', 'exact', 'success', 1],
        ['settle', 'good', 'exact', 'pending', 1],
        ['settle', 'good', 'upto', 'error', 1],
      ]),
    )
    expect(s.samples('parx_facilitator_settlement_batch_size_sum')).toEqual([
      { labels: { network: 'local-base' }, value: 3 },
    ])
  })

  it("counts agents' operations as ok or their error code", async () => {
    const m = createMetrics({ enabled: true })
    const p = instrumentPlatform<Pick<PlatformService, 'pay' | 'send' | 'swap'>>(
      {
        pay: async () => ({}) as never,
        send: async () => {
          throw new BaseError('LIMIT_EXCEEDED', 'no')
        },
        swap: async () => {
          throw new Error('bug')
        },
      },
      m.platform!,
    )
    await p.pay({} as never, {} as never)
    await expect(p.send({} as never, {} as never)).rejects.toThrow()
    await expect(p.swap({} as never, {} as never)).rejects.toThrow()
    const got = parseScrape((await m.scrape()).body)
      .samples('parx_platform_operations_total')
      .map((x) => `${x.labels.operation}:${x.labels.outcome}=${x.value}`)
    expect(got.sort()).toEqual(['pay:ok=1', 'send:LIMIT_EXCEEDED=1', 'swap:error=1'])
  })

  it('reads the store, leadership, pool and chain heads when scraped', async () => {
    const store = await openStore({ file: ':memory:' })
    stores.push(store)
    const m = createMetrics({ enabled: true })
    let leading = false
    m.observe({
      store,
      log,
      leading: () => leading,
      heads: [
        { network: 'up', head: async () => 42n },
        { network: 'down', head: () => Promise.reject(new Error('refused')) },
      ],
    })
    const now = Date.now()
    await store.db
      .insertInto('tx_outbox')
      .values({
        hash: '0x1',
        network: 'n',
        chain_id: 1,
        sender: '0x',
        nonce: 0,
        raw: '0x',
        purpose: 'swap',
        refs: null,
        state: 'sent',
        reason: null,
        created_at: now,
        updated_at: now,
      })
      .execute()
    await store.db
      .insertInto('platform_webhook_deliveries')
      .values({
        id: 'w1',
        endpoint_id: 'e',
        event_key: 'k1',
        type: 't',
        body: '{}',
        attempts: 0,
        next_attempt_at: now,
        created_at: now - 60_000,
      })
      .execute()
    let s = parseScrape((await m.scrape()).body)
    expect(s.samples('parx_outbox_rows')).toEqual(
      expect.arrayContaining([
        { labels: { state: 'sent' }, value: 1 },
        { labels: { state: 'included' }, value: 0 },
      ]),
    )
    expect(s.samples('parx_webhook_queue_depth')).toEqual([{ labels: {}, value: 1 }])
    expect(s.samples('parx_webhook_queue_oldest_age_seconds')[0]!.value).toBeGreaterThanOrEqual(59)
    expect(s.families.has('parx_xchain_orders')).toBe(true)
    expect(s.samples('parx_worker_leader')).toEqual([{ labels: {}, value: 0 }])
    expect(s.samples('parx_store_pool_connections')).toEqual([
      { labels: { dialect: 'sqlite', state: 'total' }, value: 1 },
    ])
    expect(s.samples('parx_chain_head_height')).toEqual([{ labels: { network: 'up' }, value: 42 }])
    expect(s.samples('parx_chain_rpc_up')).toEqual(
      expect.arrayContaining([
        { labels: { network: 'up' }, value: 1 },
        { labels: { network: 'down' }, value: 0 },
      ]),
    )
    expect(s.families.has('process_cpu_user_seconds_total')).toBe(true)
    leading = true
    s = parseScrape((await m.scrape()).body)
    expect(s.samples('parx_worker_leader')).toEqual([{ labels: {}, value: 1 }])
  })

  it('bounds labels taken from requests', () => {
    const label = boundedLabel(2)
    expect(['a', 'b', 'c', 'a', undefined].map(label)).toEqual(['a', 'b', 'other', 'a', 'none'])
  })
})
