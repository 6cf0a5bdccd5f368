import { Counter, type Registry } from 'prom-client'

/** Swap relays (POST /api/base/swap and /redeem, and agents' swaps through them) by outcome. */
export type SwapRecorder = { relay(outcome: string): void }
/** The platform's agent operations by outcome. */
export type PlatformRecorder = { operation(operation: 'pay' | 'send' | 'swap', outcome: string): void }

/** `parx_swap_relays_total{outcome}`: `accepted`, or the error code the relay was refused with. */
export function swapMetrics(registry: Registry): SwapRecorder {
  const c = new Counter({
    name: 'parx_swap_relays_total',
    help:
      'Base swap and redemption relays by outcome: accepted ' +
      '(sent to the chain) or the error code it was refused with',
    labelNames: ['outcome'] as const,
    registers: [registry],
  })
  return { relay: (outcome) => c.inc({ outcome }) }
}

/** `parx_platform_operations_total{operation,outcome}`: agents' pay, send and swap, `ok` or the error code. */
export function platformMetrics(registry: Registry): PlatformRecorder {
  const c = new Counter({
    name: 'parx_platform_operations_total',
    help: "Agents' pay, send and swap calls by outcome: ok or the error code they failed with",
    labelNames: ['operation', 'outcome'] as const,
    registers: [registry],
  })
  return { operation: (operation, outcome) => c.inc({ operation, outcome }) }
}
