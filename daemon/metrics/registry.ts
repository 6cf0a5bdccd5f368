import type { Logger } from 'pino'
import { collectDefaultMetrics, Registry } from 'prom-client'
import { BaseError } from '../../src/errors/index.js'
import type { Store } from '../store/store.js'
import { chainGauges, type HeadProbe } from './chain-gauges.js'
import { type ChannelClaimRecorder, channelClaimMetrics } from './channel-claims.js'
import { type FacilitatorRecorder, facilitatorMetrics } from './facilitator.js'
import { type HttpRecorder, httpMetrics } from './http.js'
import { type PlatformRecorder, platformMetrics, type SwapRecorder, swapMetrics } from './operations.js'
import { leadershipGauge, storePoolGauge } from './process-gauges.js'
import { storeGauges } from './store-gauges.js'

/** What is read when Prometheus scrapes (never polled): known once the composition has built them. */
export type ScrapeSources = {
  store: Store
  leading(): boolean
  heads: HeadProbe[]
  log: Pick<Logger, 'warn'>
}

/** The metrics surface (GET /metrics, daemon/http/routes/metrics/metrics.ts) and the --metrics-port listener. */
export type MetricsSurface = {
  /** The exposition in Prometheus' text format; NOT_FOUND when metrics are off. */
  scrape(): Promise<{ contentType: string; body: string }>
}

/**
 * One daemon's metrics (docs/operations.md "Metrics"): a registry of its own, so several daemons in
 * one process (tests) never mix their series. With metrics off every recorder is absent, so the
 * services record nothing at all, and the surface answers NOT_FOUND.
 */
export type DaemonMetrics = MetricsSurface & {
  enabled: boolean
  http?: HttpRecorder
  facilitator?: FacilitatorRecorder
  swap?: SwapRecorder
  platform?: PlatformRecorder
  channelClaims?: ChannelClaimRecorder
  /** Registers the gauges read at scrape time. */
  observe(sources: ScrapeSources): void
}

export function createMetrics(opts: { enabled: boolean }): DaemonMetrics {
  if (!opts.enabled) {
    return {
      enabled: false,
      observe: () => {},
      scrape: async () => {
        throw new BaseError(
          'NOT_FOUND',
          'metrics are off on this daemon (metrics.enabled = false, PARX_METRICS_ENABLED)',
        )
      },
    }
  }
  const registry = new Registry()
  // Node's process metrics (CPU, memory, event loop lag, GC, handles). A coarse event loop sampler:
  // its timer wakes a quiet daemon, and lag under 50 ms is not what an operator alerts on.
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 50 })
  return {
    enabled: true,
    http: httpMetrics(registry),
    facilitator: facilitatorMetrics(registry),
    swap: swapMetrics(registry),
    platform: platformMetrics(registry),
    channelClaims: channelClaimMetrics(registry),
    observe(s) {
      storeGauges(registry, s.store, s.log)
      storePoolGauge(registry, s.store)
      leadershipGauge(registry, s.leading)
      chainGauges(registry, s.heads)
    },
    scrape: async () => ({ contentType: registry.contentType, body: await registry.metrics() }),
  }
}
