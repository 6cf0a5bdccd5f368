import { z } from 'zod'
import type { PaymentRequirements } from './types.js'

/**
 * The bazaar discovery extension's listing, `GET {facilitator_url}/discovery/resources`, as
 * `@x402/extensions` 2.27 (`withBazaar(client).extensions.bazaar.listResources`) calls and reads it.
 */
export const BAZAAR = 'bazaar'

/** Page sizes: what a call without `limit` gets, and the most one page holds. */
export const DISCOVERY_PAGE = { default: 20, max: 100 } as const

const count = (name: string, max: number) =>
  z
    .string()
    .regex(/^\d{1,9}$/, `${name} must be a whole number`)
    .transform(Number)
    .refine((n) => n <= max, `${name} must be at most ${max}`)

/** The query the reference client sends: filters and offset paging, all optional. */
export const discoveryQuery = z.object({
  /** The resource's protocol: `http` (all ours) or `mcp` (none). */
  type: z.string().max(32).optional(),
  payTo: z.string().max(128).optional(),
  scheme: z.string().max(32).optional(),
  /** CAIP-2 (eip155:8453) or the v1 name (base). */
  network: z.string().max(64).optional(),
  /** Only resources carrying this extension key (`bazaar`: all of ours). */
  extensions: z.string().max(64).optional(),
  limit: count('limit', DISCOVERY_PAGE.max)
    .refine((n) => n >= 1, 'limit must be at least 1')
    .optional(),
  offset: count('offset', 1e9).optional(),
})
export type DiscoveryQuery = z.output<typeof discoveryQuery>

/** One listed resource (the reference's `DiscoveryResource`). */
export type DiscoveryResource = {
  resource: string
  type: 'http'
  x402Version: number
  accepts: PaymentRequirements[]
  /** ISO 8601: when the endpoint last changed. */
  lastUpdated: string
  description?: string
  mimeType?: string
  extensions?: Record<string, unknown>
}

/** The reference's `DiscoveryResourcesResponse`. */
export type DiscoveryResourcesResponse = {
  x402Version: 2
  items: DiscoveryResource[]
  pagination: { limit: number; offset: number; total: number }
}
