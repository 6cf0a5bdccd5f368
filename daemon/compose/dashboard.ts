import type { PublicOrigin } from '../../src/config/public-origin.js'
import type { KeysService } from '../auth/service.js'
import { loginLimiter } from '../dashboard/login-limiter.js'
import { type DashboardOrigin, dashboardOrigin } from '../dashboard/origin.js'
import { type DashboardService, dashboardService } from '../dashboard/service.js'
import { type SessionStore, sessionStore } from '../dashboard/sessions.js'
import { siwe } from '../dashboard/siwe.js'
import { forwardedHeadersTrusted } from '../http/client-address.js'
import type { PlatformService } from '../platform/service.js'
import { userKeys } from '../platform/user-keys.js'
import type { Access } from './access.js'
import type { Core } from './core.js'

export type ComposedDashboard = { service: DashboardService; sessions: SessionStore; origin: DashboardOrigin }

/** The dashboard at {dashboard_url}: SIWE sessions, partner keys, CLI user keys, agents. */
export function composeDashboard(
  { config, store, base, log }: Core,
  p: { access: Access; keys: KeysService; platform: PlatformService; publicOrigin: PublicOrigin | undefined },
): ComposedDashboard {
  const sessions = sessionStore(store)
  // X-Forwarded-Proto counts (local profile without a public origin) only through a trusted proxy.
  const origin = dashboardOrigin(p.publicOrigin, forwardedHeadersTrusted)
  const service = dashboardService({
    store,
    sessions,
    partnerKeys: p.access.partnerKeys,
    keys: p.keys,
    platform: p.platform,
    userKeys: userKeys(store),
    replicas: Boolean(config.store.url),
    // Sign-in is on the deployment's Base chain; contract wallets are checked there (ERC-1271/6492).
    siwe: siwe({ store, chainIds: [base.chainId], verifyContractSignature: (m) => base.client.verifyMessage(m) }),
    // Sign-in per client network, shared by replicas on PostgreSQL (daemon/dashboard/login-limiter.ts).
    loginLimiter: loginLimiter(store, log),
    origin,
  })
  return { service, sessions, origin }
}
