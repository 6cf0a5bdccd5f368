import { route } from '../../route.js'
import type { Services } from '../../../services.js'

type Check = { ok: boolean; ms: number; detail?: string | number }

async function timed(fn: () => Promise<string | number | undefined>): Promise<Check> {
  const t = performance.now()
  try {
    const detail = await Promise.race([
      fn(),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no answer within 2 s')), 2_000).unref()),
    ])
    return { ok: true, ms: Math.round(performance.now() - t), ...(detail !== undefined ? { detail } : {}) }
  } catch (e) {
    return { ok: false, ms: Math.round(performance.now() - t), detail: (e as Error).message }
  }
}

export async function readiness(s: Services) {
  const checks: Record<string, Check> = {
    store: await timed(async () => {
      await s.store.ping()
      return undefined
    }),
  }
  const chainChecks = [
    ...Object.values(s.evm).map((ch) => [ch.key, () => ch.client.getBlockNumber({ cacheTime: 0 }).then(Number)] as const),
    [s.solana.key, () => s.solana.connection.getSlot()] as const,
  ]
  const results = await Promise.all(chainChecks.map(([, fn]) => timed(fn)))
  chainChecks.forEach(([key], i) => (checks[key] = results[i]!))
  return { ready: Object.values(checks).every((c) => c.ok), checks }
}

export default route({
  method: 'GET', path: '/api/readiness', auth: 'open',
  handler: async (c, s) => {
    const r = await readiness(s)
    return c.json(r, r.ready ? 200 : 503)
  },
})
