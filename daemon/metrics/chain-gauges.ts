import { Gauge, type Registry } from 'prom-client'
import { BaseError } from '../../src/errors/base.js'

/** One network's head: its block number (EVM) or slot (Solana), read with one RPC call. */
export type HeadProbe = { network: string; head(): Promise<bigint | number> }

/** How long a scrape waits for a network's head before reporting it as unknown. */
const PROBE_TIMEOUT_MS = 2_000

/**
 * `parx_chain_head_height{network}` and `parx_chain_rpc_latency_seconds{network}`: when scraped,
 * each network is asked its head once, in parallel, and the round trip is the latency reported.
 * A probe per scrape costs nothing between scrapes and nothing on the request path; a network
 * that does not answer in 2 s has no sample this scrape (`absent()` alerts on it) and
 * `parx_chain_rpc_up{network}` 0.
 */
export function chainGauges(registry: Registry, probes: HeadProbe[]): void {
  let round: Promise<Map<string, { height: number; seconds: number } | undefined>> | undefined
  const probeAll = () =>
    (round ??= Promise.all(
      probes.map(async (p) => {
        const t0 = performance.now()
        try {
          const h = await withTimeout(p.head(), PROBE_TIMEOUT_MS)
          return [p.network, { height: Number(h), seconds: (performance.now() - t0) / 1000 }] as const
        } catch {
          return [p.network, undefined] as const
        }
      }),
    )
      .then((r) => new Map(r))
      .finally(() => (round = undefined)))

  const gauge = (
    name: string,
    help: string,
    value: (r: { height: number; seconds: number } | undefined) => number | undefined,
  ) =>
    new Gauge({
      name,
      help,
      labelNames: ['network'] as const,
      registers: [registry],
      async collect() {
        this.reset()
        for (const [network, r] of await probeAll()) {
          const v = value(r)
          if (v !== undefined) this.set({ network }, v)
        }
      },
    })
  gauge(
    'parx_chain_head_height',
    'Head block number (EVM) or slot (Solana) of each network, read when scraped',
    (r) => r?.height,
  )
  gauge(
    'parx_chain_rpc_latency_seconds',
    'Round trip of the head read of each network, when scraped',
    (r) => r?.seconds,
  )
  gauge('parx_chain_rpc_up', 'Whether each network answered its head read within 2 s when scraped', (r) => (r ? 1 : 0))
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  return Promise.race([
    p,
    new Promise<never>(
      (_, reject) =>
        (timer = setTimeout(() => reject(new BaseError('CHAIN_UNAVAILABLE', `no answer in ${ms} ms`)), ms)),
    ),
  ]).finally(() => clearTimeout(timer))
}
