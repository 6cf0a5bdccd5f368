import { BaseError } from '../errors/index.js'

/**
 * PARX_* environment variables, declared as data: variable -> path in the config.
 * Secrets are only ever read here and never printed.
 */
export const envPaths: Record<string, string> = {
  PARX_PROFILE: 'profile',
  PARX_HOST: 'host',
  PARX_PORT: 'port',
  PARX_PUBLIC_ORIGIN: 'publicOrigin',
  PARX_DATA_DIR: 'dataDir',
  PARX_LOG_LEVEL: 'logLevel',
  PARX_STORE_URL: 'store.url',
  PARX_ROLE: 'role',
  PARX_AUTH_ENFORCE: 'auth.enforce',
  PARX_KEY_PREFIX: 'auth.keyPrefix',
  PARX_OPERATOR_TOKEN: 'auth.operatorToken',
  PARX_MAX_USD: 'limits.maxUsd',
  PARX_REDEEM_MAX_USD: 'limits.redeemMaxUsd',
  PARX_REDEEM_HARD_MAX_USD: 'limits.redeemHardMaxUsd',
  PARX_SLIPPAGE_BPS_MAX: 'limits.slippageBpsMax',
  PARX_XCHAIN_MAX_USD: 'limits.xchainMaxUsd',
  PARX_XCHAIN_FILL_SECONDS: 'xchain.fillSeconds',
  PARX_XCHAIN_EXPIRY_SECONDS: 'xchain.expirySeconds',
  PARX_XCHAIN_POLL_MS: 'xchain.pollMs',
  PARX_FACILITATOR_RECEIPT_TIMEOUT_MS: 'facilitator.receiptTimeoutMs',
  PARX_PAY_VALIDITY_SECONDS: 'pay.validitySeconds',
  PARX_PAY_PREFER_AUTH_CAPTURE: 'pay.preferAuthCapture',
  PARX_PAY_HELD_RECHECK_EVERY_SECONDS: 'pay.heldRecheckEverySeconds',
  PARX_PAY_CHANNEL_DEPOSIT_MULTIPLIER: 'pay.channels.depositMultiplier',
  PARX_PAY_CHANNEL_DEPOSIT_CAP: 'pay.channels.depositCap',
  PARX_PAY_CHANNEL_MAX_WITHDRAW_DELAY: 'pay.channels.maxWithdrawDelay',
  PARX_PAY_HOLD_REFRESH_EVERY_SECONDS: 'pay.holdRefreshEverySeconds',
  PARX_SOLVER_KEY: 'keys.solver',
  PARX_FACILITATOR_KEY: 'keys.facilitator',
  PARX_SOLANA_SOLVER_KEY: 'keys.solanaSolver',
  PARX_SOLANA_FACILITATOR_KEY: 'keys.solanaFacilitator',
  PARX_BATCH_RECEIVER_AUTHORIZER_KEY: 'keys.batchReceiverAuthorizer',
  PARX_PLATFORM_WALLET_KEY: 'keys.platformWallet',
  PARX_RECEIPT_KEY: 'keys.receipt',
  PARX_FACILITATOR_EIP6492_FACTORIES: 'facilitator.eip6492Factories',
  PARX_TRUSTED_PROXIES: 'http.trustedProxies',
  PARX_LOG_MAX_MEGABYTES: 'log.maxMegabytes',
  PARX_LOG_FILES: 'log.files',
  PARX_WEBHOOKS_RETENTION_DAYS: 'webhooks.retentionDays',
  PARX_SELLER_CHANNELS_CLAIM_EVERY_SECONDS: 'sellerChannels.claimEverySeconds',
  PARX_SELLER_CHANNELS_CLAIM_MIN_UNCLAIMED: 'sellerChannels.claimMinUnclaimed',
  PARX_SELLER_CHANNELS_CLAIM_MAX_AGE_SECONDS: 'sellerChannels.claimMaxAgeSeconds',
  PARX_SELLER_HOLDS_SWEEP_EVERY_SECONDS: 'sellerHolds.sweepEverySeconds',
  PARX_HTTP_DRAIN_SECONDS: 'http.drainSeconds',
  PARX_RATE_LIMIT_PER_SECOND: 'rateLimit.perSecond',
  PARX_RATE_LIMIT_BURST: 'rateLimit.burst',
  PARX_RATE_LIMIT_EXEMPT_LOOPBACK: 'rateLimit.exemptLoopback',
  PARX_METRICS_ENABLED: 'metrics.enabled',
  PARX_METRICS_PORT: 'metrics.port',
  PARX_METRICS_HOST: 'metrics.host',
  PARX_EGRESS_ALLOW: 'egress.allow',
  PARX_EGRESS_STRICT: 'egress.strict',
  PARX_BUNDLER_PRESTART: 'bundler.prestart',
  PARX_UNFREEZE_REQUIRES_DASHBOARD: 'platform.unfreezeRequiresDashboard',
  PARX_APPROVAL_TTL_SECONDS: 'platform.approvalTtlSeconds',
  PARX_PAID_UPSTREAM_TIMEOUT_MS: 'platform.paidUpstreamTimeoutMs',
}

/** Turns the environment into a partial config object (unknown PARX_ names are ignored). */
export function configFromEnv(env: NodeJS.ProcessEnv): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [name, path] of Object.entries(envPaths)) {
    const value = env[name]
    if (value !== undefined && value !== '') setPath(out, path, value)
  }
  // PARX_RPC_BASE_SEPOLIA=https://... -> rpc['base-sepolia']
  for (const [name, value] of Object.entries(env)) {
    if (name.startsWith('PARX_RPC_') && value)
      setPath(out, `rpc.${name.slice(9).toLowerCase().replaceAll('_', '-')}`, value)
  }
  // PARX_CONTRACTS_BASE_SEPOLIA='{"router":"0x...","USDC":"0x..."}' -> contracts['base-sepolia'] (what `parx chains`
  // and `parx deploy` print)
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith('PARX_CONTRACTS_') || !value) continue
    let parsed: unknown
    try {
      parsed = JSON.parse(value)
    } catch {
      throw new BaseError(
        'BAD_REQUEST',
        `${name} is not JSON: it takes an object of name -> address, e.g. {"router":"0x..."}`,
      )
    }
    setPath(out, `contracts.${name.slice(15).toLowerCase().replaceAll('_', '-')}`, parsed)
  }
  // PARX_FLOWS="base.swap=off,sol.swap=on"
  if (env.PARX_FLOWS) {
    for (const pair of env.PARX_FLOWS.split(',')) {
      const [flow, state] = pair.split('=').map((s) => s.trim())
      if (flow)
        setPath(out, `flows.${flow.replaceAll('.', '\u0000')}`, state !== 'off' && state !== 'false' && state !== '0')
    }
  }
  // PARX_XCHAIN_ATTESTOR_URLS="0=http://127.0.0.1:9100,1=http://127.0.0.1:9101" -> xchain.attestorUrls (indexes 0, 1,
  // 2)
  if (env.PARX_XCHAIN_ATTESTOR_URLS) {
    for (const pair of env.PARX_XCHAIN_ATTESTOR_URLS.split(',')) {
      const at = pair.indexOf('=')
      if (at < 1)
        throw new BaseError(
          'BAD_REQUEST',
          `PARX_XCHAIN_ATTESTOR_URLS takes index=url pairs separated ` +
            `by commas, e.g. 0=http://127.0.0.1:9100 (got '${pair}')`,
        )
      setPath(out, `xchain.attestorUrls.${pair.slice(0, at).trim()}`, pair.slice(at + 1).trim())
    }
  }
  if (env.PARX_ATTESTOR_KEYS)
    setPath(
      out,
      'keys.attestors',
      env.PARX_ATTESTOR_KEYS.split(',').map((s) => s.trim()),
    )
  if (env.PARX_SOLANA_ATTESTOR_KEYS)
    setPath(
      out,
      'keys.solanaAttestors',
      env.PARX_SOLANA_ATTESTOR_KEYS.split(',').map((s) => s.trim()),
    )
  if (env.PARX_PLATFORM_WALLET_PREVIOUS_KEYS)
    setPath(
      out,
      'keys.platformWalletPrevious',
      env.PARX_PLATFORM_WALLET_PREVIOUS_KEYS.split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    )
  return out
}

/** Sets a dotted path; a NUL in a segment stands for a literal dot (flow names contain dots). */
export function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.').map((p) => p.replaceAll('\u0000', '.'))
  let node = target
  for (const part of parts.slice(0, -1)) {
    if (typeof node[part] !== 'object' || node[part] === null) node[part] = {}
    node = node[part] as Record<string, unknown>
  }
  node[parts.at(-1)!] = value
}
