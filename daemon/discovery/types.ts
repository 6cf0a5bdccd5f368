import type { Address } from 'viem'

/** Where this daemon answers (the discovery routes publish them; daemon/compose/http.ts knows them once it listens). */
export type DaemonUrls = {
  api: string
  facilitator: string
  platform: string
  dashboard: string
  rpc: Record<string, string>
  /** The --metrics-port listener's GET /metrics, when one is configured (docs/operations.md "Metrics"). */
  metrics?: string
}

/** Public addresses of the service's own accounts (never their keys). */
export type PublicAccounts = { solver: Address; facilitator: Address; solanaSolver: string; solanaFacilitator: string }
