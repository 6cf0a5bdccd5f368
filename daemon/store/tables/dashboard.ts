import type { RateLimitBucketsTable } from './foundation.js'

/** A SIWE nonce the daemon issued (601): deleted when used, so a message signs in once. */
export interface DashboardNoncesTable {
  nonce: string
  /** epoch milliseconds */
  expires_at: number
}

/** A signed-in dashboard session (601): only the sha256 of the cookie value is kept. */
export interface DashboardSessionsTable {
  id_hash: string
  /** lower-case 0x address that signed the SIWE message */
  wallet: string
  /** sent back in a header on every state-changing call */
  csrf_token: string
  created_at: number
  expires_at: number
}

export interface DashboardTables {
  dashboard_nonces: DashboardNoncesTable
  dashboard_sessions: DashboardSessionsTable
  /** Sign-in attempts per client network (610), shared by replicas: the API's bucket shape (rate_limit_buckets). */
  dashboard_login_buckets: RateLimitBucketsTable
}
