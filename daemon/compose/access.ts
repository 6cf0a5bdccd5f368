import { postgresKeyChanges } from '../auth/key-changes.js'
import { type PartnerKeyStore, partnerKeyStore } from '../auth/partner-keys.js'
import { type AuthService, authService, type KeysService, keysService } from '../auth/service.js'
import { HOSTED_VERDICT_TTLS, type VerdictCache, verdictCache } from '../auth/verdict-cache.js'
import type { Core, Ground } from './core.js'

export type Access = { partnerKeys: PartnerKeyStore; verdicts: VerdictCache; auth: AuthService }

/** Who may call: partner keys (their verdicts cached per process) and the operator token. */
export function composeAccess({ config, store, keys }: Ground): Access {
  const partnerKeys = partnerKeyStore(store, config.auth.keyPrefix)
  const verdicts = verdictCache({
    lookup: (key) => partnerKeys.lookup(key),
    ...(config.store.url ? HOSTED_VERDICT_TTLS : {}),
  })
  const auth = authService({
    auth: config.auth,
    operatorToken: keys.operatorToken,
    verdicts,
    touch: (key) => partnerKeys.touch(key),
    lookup: (key) => partnerKeys.lookup(key),
  })
  return { partnerKeys, verdicts, auth }
}

/**
 * The operator's partner key routes; replicas on one PostgreSQL store tell each other about key changes at once
 * (LISTEN/NOTIFY).
 */
export function composeKeys({ config, store, log, life }: Core, { partnerKeys, verdicts }: Access): KeysService {
  const keyChanges = config.store.url
    ? postgresKeyChanges({
        url: config.store.url,
        store,
        forget: (hash) => (hash ? verdicts.forget(hash) : verdicts.clear()),
        onError: (err) =>
          log.warn({ err }, 'partner key change announcements: connection lost; verdict TTLs apply until it is back'),
      })
    : undefined
  if (keyChanges) life.onStop(() => keyChanges.stop())
  return keysService({ keys: partnerKeys, verdicts, publish: keyChanges?.publish })
}
