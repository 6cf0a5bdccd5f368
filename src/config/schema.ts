import proxyaddr from 'proxy-addr'
import { z } from 'zod'
import { usdAmount } from '../sdk/platform/fields.js'

/** Flows a route can switch off; /api/capabilities reports them and a disabled one answers FLOW_DISABLED. */
export const flowNames = [
  'base.swap',
  'base.entry',
  'base.redeem',
  'sol.swap',
  'sol.redeem',
  'xchain.sol-origin',
  'xchain.evm-origin',
  'facilitator',
  'faucet',
] as const
export type FlowName = (typeof flowNames)[number]

const bool = z.union([z.boolean(), z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1')])
const port = z.coerce.number().int().min(0).max(65535)
/** A USD amount as the platform's limits take it (decimal string, at most 6 decimals, above 0). */
const usdLimit = z.union([z.string(), z.number().transform(String)]).pipe(usdAmount)
/** A list of EVM addresses: an array (config file) or comma-separated (environment). */
const addressList = z
  .union([
    z.array(z.string()),
    z.string().transform((s) =>
      s
        .split(',')
        .map((a) => a.trim())
        .filter(Boolean),
    ),
  ])
  .pipe(z.array(z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'an EVM address (0x and 40 hex digits)')))

/** `host:port` entries (an array, or comma-separated in the environment); an IPv6 host in brackets. */
const hostPortList = z
  .union([
    z.array(z.string()),
    z.string().transform((s) =>
      s
        .split(',')
        .map((a) => a.trim())
        .filter(Boolean),
    ),
  ])
  .pipe(
    z.array(
      z
        .string()
        .trim()
        .toLowerCase()
        .regex(/^(\[[0-9a-f:.]+\]|[a-z0-9_.-]+):\d{1,5}$/, 'host:port, e.g. seller.internal:8080 or [fd00::5]:443'),
    ),
  )

/**
 * The daemon's whole configuration, declared once. Sources in precedence order:
 * flags > PARX_* environment > config file (conf, mode 0600) > these defaults.
 */
export const configSchema = z.object({
  profile: z.enum(['local', 'testnet', 'mainnet']).default('local'),
  host: z.string().default('127.0.0.1'),
  port: port.default(8420),
  /**
   * The origin users reach this deployment at (docs/hosting.md "Hosting safely"), e.g.
   * https://pay.example.com: sign-in messages (EIP-4361 domain and URI) are written and checked
   * against it alone, and an https origin makes cookies Secure and adds HSTS. Required on testnet
   * and mainnet (src/config/public-origin.ts); on the local profile, absent = the loopback or IP
   * address the browser used.
   */
  publicOrigin: z.string().optional(),
  /** Where the store, the keys of the local profile and the embedded chains' state live. */
  dataDir: z.string().optional(),
  fresh: bool.default(false),
  /**
   * Embedded chains to start over at this start (`parx serve --reset-chain local-base`): the
   * state file is moved aside, never deleted. A flag only: no PARX_* variable sets it.
   */
  resetChain: z.array(z.string()).default([]),
  /**
   * Where the service tables live: absent = SQLite in the data dir (parx.db); `postgres://...` =
   * a PostgreSQL database shared by every parx process pointed at it.
   */
  /**
   * What this process does: `api` serves the routes, `worker` runs the worker duties when it leads
   * (reconciliation, sweeps), `all` both. api and worker need a PostgreSQL store shared by them.
   */
  role: z.enum(['api', 'worker', 'all']).default('all'),
  store: z
    .object({
      url: z
        .string()
        .regex(/^postgres(ql)?:\/\/\S+$/, 'a postgres:// or postgresql:// URL')
        .optional(),
    })
    .default({}),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /**
   * parx.log's size on disk (docs/operations.md "Retention and log size"): rotated to parx.log.1 once
   * it would pass maxMegabytes, `files` older ones kept (about maxMegabytes x (files + 1) in all).
   * Env PARX_LOG_MAX_MEGABYTES, PARX_LOG_FILES.
   */
  log: z
    .object({
      maxMegabytes: z.coerce.number().positive().max(100_000).default(50),
      files: z.coerce.number().int().min(0).max(100).default(3),
    })
    .default({}),
  /**
   * Settlement webhook deliveries: finished rows (delivered, or given up after every retry) older than
   * retentionDays are deleted by the worker leader, hourly; a row still waiting for its receiver is
   * never deleted. Env PARX_WEBHOOKS_RETENTION_DAYS.
   */
  webhooks: z
    .object({
      retentionDays: z.coerce.number().positive().max(3650).default(30),
    })
    .default({}),
  /**
   * The claim-and-settle duty of batch-settlement channels paying the platform's seller endpoints
   * (docs/platform-api.md "Batch settlement"): the leader's worker looks every claimEverySeconds
   * and claims a group of channels (network, token, receiver authorizer) once its unclaimed total
   * reaches claimMinUnclaimed (base units) or its oldest charge is claimMaxAgeSeconds old, then
   * sweeps each receiver's claimed funds. Env PARX_SELLER_CHANNELS_CLAIM_*.
   */
  sellerChannels: z
    .object({
      claimEverySeconds: z.coerce.number().positive().max(3600).default(30),
      claimMinUnclaimed: z
        .string()
        .regex(/^\d{1,39}$/, 'base units (digits)')
        .default('1000000'),
      claimMaxAgeSeconds: z.coerce.number().min(0).max(86_400).default(300),
    })
    .default({}),
  /**
   * The leader's sweep of the platform endpoints' auth-capture holds (docs/platform-api.md
   * "Auth-capture"): every sweepEverySeconds it voids the holds no request will finish. Only the
   * cadence: which holds are due (untouched 10 minutes, or 5 minutes before the capture deadline)
   * is not a setting. Env PARX_SELLER_HOLDS_SWEEP_EVERY_SECONDS.
   */
  sellerHolds: z
    .object({
      sweepEverySeconds: z.coerce.number().min(0.1).max(3600).default(30),
    })
    .default({}),
  auth: z
    .object({
      /** Off is the soft-launch mode: K routes answer without a valid key. */
      enforce: bool.default(true),
      /** Prefix of partner keys: `<prefix>-<32 hex>`. */
      keyPrefix: z
        .string()
        .regex(/^[a-z][a-z0-9]{1,15}$/)
        .default('parx'),
      operatorToken: z.string().min(24).optional(),
    })
    .default({}),
  flows: z.record(z.enum(flowNames), bool).default({}),
  limits: z
    .object({
      /** Per-swap cap in USD on par routes; null means none (reported as `max`). */
      maxUsd: z.coerce.number().positive().nullable().default(10_000),
      /** Largest single-shot redemption, and the absolute ceiling. */
      redeemMaxUsd: z.coerce.number().positive().default(25_000),
      redeemHardMaxUsd: z.coerce.number().positive().default(100_000),
      slippageBpsMax: z.coerce.number().int().min(0).max(10_000).default(50),
      xchainMaxUsd: z.coerce.number().positive().default(5_000),
    })
    .default({}),
  /**
   * Cross-chain orders (docs/cross-chain.md): seconds from build to an order's fillDeadline and to
   * its expires (claims end and refunds begin there), and how often the solver worker polls.
   */
  xchain: z
    .object({
      fillSeconds: z.coerce.number().int().min(2).max(86_400).default(300),
      expirySeconds: z.coerce
        .number()
        .int()
        .min(3)
        .max(7 * 86_400)
        .default(900),
      pollMs: z.coerce.number().int().min(20).max(60_000).default(100),
      /**
       * Attestors run as their own processes (`parx attestor --index N`), by index: the worker asks
       * them over HTTP instead of in-process. Indexes are 0, 1 and 2 (0-based, as `--index`).
       * Env PARX_XCHAIN_ATTESTOR_URLS="0=http://host:port,1=...".
       */
      attestorUrls: z
        .record(
          z.enum(['0', '1', '2'], { errorMap: () => ({ message: 'attestor indexes are 0, 1 and 2' }) }),
          z.string().url(),
        )
        .default({}),
    })
    .default({})
    .refine(
      (x) => x.expirySeconds > x.fillSeconds,
      'xchain.expirySeconds must be larger than xchain.fillSeconds (claims happen between the two)',
    ),
  /**
   * Outbound requests made for users: pay, paid endpoints' upstreams, settlement webhooks (docs/hosting.md
   * "Hosting safely"). On testnet and mainnet they reach public unicast addresses only.
   */
  egress: z
    .object({
      /**
       * Exact `host:port` entries admitted although not public (a seller, upstream or receiver inside); other ports
       * stay refused.
       */
      allow: hostPortList.default([]),
      /**
       * The guard on the local profile too (to try a hosted deployment's settings); testnet and mainnet always have it.
       */
      strict: bool.default(false),
    })
    .default({}),
  /**
   * Generic abuse protection (not a per-key tier): a token bucket per caller (docs/hosting.md "Hosting
   * safely"): a user, agent, partner key or dashboard wallet once authenticated, else the client
   * address. Shared by replicas through a PostgreSQL store.
   */
  rateLimit: z
    .object({
      perSecond: z.coerce.number().positive().default(50),
      burst: z.coerce.number().int().positive().default(200),
      /**
       * Loopback clients are the operator's own tools and tests. Absent: exempt on the local profile
       * only; hosted, a proxy on the same VM is loopback and would exempt everyone behind it.
       */
      exemptLoopback: bool.optional(),
    })
    .default({}),
  http: z
    .object({
      /**
       * Proxies whose X-Forwarded-For is believed (proxy-addr semantics): IPs or CIDRs, or the names
       * loopback, linklocal, uniquelocal. The client is the nearest address in the chain that is not
       * one of them; empty (default): the socket's peer, and forwarded headers are ignored.
       * Env PARX_TRUSTED_PROXIES="10.0.0.0/8,127.0.0.1".
       */
      trustedProxies: z
        .union([
          z.array(z.string()),
          z.string().transform((s) =>
            s
              .split(',')
              .map((a) => a.trim())
              .filter(Boolean),
          ),
        ])
        .pipe(
          z.array(z.string()).superRefine((list, ctx) => {
            try {
              proxyaddr.compile(list)
            } catch (e) {
              ctx.addIssue({
                code: 'custom',
                message: `${(e as Error).message}: use IPs, CIDRs (10.0.0.0/8) or loopback, linklocal, uniquelocal`,
              })
            }
          }),
        )
        .default([]),
      /**
       * The stop bound (docs/operations.md "Stopping and rolling restarts"): on SIGTERM the
       * daemon stops accepting, answers requests in flight for at most this long, then closes what is
       * left. Env PARX_HTTP_DRAIN_SECONDS.
       */
      drainSeconds: z.coerce.number().min(0).max(600).default(10),
    })
    .default({}),
  /**
   * Per-user bounds (docs/hosting.md "Hosting safely"): creating one more answers QUOTA_EXCEEDED. Keys count
   * while not revoked; webhooks are endpoints with a webhook URL.
   */
  quotas: z
    .object({
      agentsPerUser: z.coerce.number().int().min(0).default(25),
      endpointsPerUser: z.coerce.number().int().min(0).default(100),
      webhooksPerUser: z.coerce.number().int().min(0).default(20),
      userKeysPerUser: z.coerce.number().int().min(0).default(10),
      agentKeysPerAgent: z.coerce.number().int().min(0).default(10),
      partnerKeysPerWallet: z.coerce.number().int().min(0).default(10),
      /** `pay` calls of one user's agents in flight at once, per API process. */
      concurrentPaysPerUser: z.coerce.number().int().min(1).default(8),
      /**
       * Limits a new agent starts with (USD; the user lifts them with set-limits). Absent: 1 per
       * payment and 10 a day on testnet and mainnet, none on the local profile; null: none.
       */
      newAgentPerPaymentUsd: usdLimit.nullable().optional(),
      newAgentDailyUsd: usdLimit.nullable().optional(),
    })
    .default({}),
  /** The x402 facilitator. */
  facilitator: z
    .object({
      /**
       * ERC-6492 factories whose counterfactual (not yet deployed) smart wallets may pay: the
       * facilitator calls the factory to deploy the wallet in the settlement itself (x402 PR #2658).
       * Empty (default): such payers are refused with `eip6492_factory_not_allowed`.
       */
      eip6492Factories: addressList.default([]),
      /**
       * How long a settle waits for its transaction's receipt before answering `settlement_pending`
       * (the transaction is then finished in the background; GET /facilitator/status).
       */
      receiptTimeoutMs: z.coerce.number().int().min(100).max(600_000).default(30_000),
    })
    .default({}),
  /** The agent payments platform's own rules (docs/hosting.md "Hosting safely"). */
  platform: z
    .object({
      /**
       * Unfreezing an agent (or all of a user's) takes a dashboard sign-in (SIWE with the user's
       * wallet); a user key alone is FORBIDDEN, so a stolen user key can freeze but never undo it.
       */
      unfreezeRequiresDashboard: bool.default(false),
      /**
       * How long a pay or send held for approval (above an agent's approveAboveUsd) waits for the
       * owner and, once approved, for the agent to use it; expired, it is never signed.
       */
      approvalTtlSeconds: z.coerce
        .number()
        .int()
        .min(10)
        .max(7 * 86_400)
        .default(900),
      /**
       * How long a paid endpoint's upstream may take (daemon/seller/paid.ts): past it the buyer gets 504
       * `SELLER_FAILED` and is not charged. At most 25 s: below the 30 s an agent's pay waits for a seller, so a
       * platform buyer hears the 504 instead of giving up first. Env PARX_PAID_UPSTREAM_TIMEOUT_MS.
       */
      paidUpstreamTimeoutMs: z.coerce
        .number()
        .int()
        .min(100)
        .max(25_000, "at most 25000 ms: an agent's pay waits 30 s for a seller, and must hear the 504 first")
        .default(20_000),
    })
    .default({}),
  /** Agents' payments (docs/hosting.md "Hosting safely"). */
  pay: z
    .object({
      /**
       * The longest a payment an agent signs (x402 authorization or permit, MPP credential) stays
       * valid, in seconds: a seller asking more gets this. A spend the seller did not settle stays
       * reserved until then. Bounds as daemon/buyer/pay/quote.ts VALIDITY_SECONDS.
       */
      validitySeconds: z.coerce.number().int().min(10).max(3600).default(300),
      /**
       * How often the worker leader rechecks spends held until their signed payment expires (a pay the seller did
       * not settle, a send the bundler took without answering; daemon/buyer/pending-spends.ts): once expired on
       * chain, each is released or confirmed within about this long. Env PARX_PAY_HELD_RECHECK_EVERY_SECONDS.
       */
      heldRecheckEverySeconds: z.coerce.number().min(0.1).max(300).default(5),
      /**
       * x402 `auth-capture` (a refundable hold the seller captures for what it served) before
       * `exact` when a seller offers both; off: `exact` first. A pay request's `scheme` overrides it.
       */
      preferAuthCapture: bool.default(true),
      /**
       * x402 batch-settlement channels (daemon/buyer/batch-settlement/): the deposit made when an agent
       * first pays a seller through one is `depositMultiplier` x the price (or the seller's larger
       * minDeposit), at most `depositCap` token units open in one channel and never more than the
       * daily limit still allows; a seller whose minDeposit is above the cap is refused. It counts
       * against the daily limit until it is back in the wallet (refunded or withdrawn) or charged.
       * A seller asking a withdraw delay above `maxWithdrawDelay` seconds (how long a deposit stays
       * locked when taken back without the seller) is refused.
       */
      channels: z
        .object({
          depositMultiplier: z.coerce.number().int().min(1).max(1000).default(10),
          maxWithdrawDelay: z.coerce
            .number()
            .int()
            .min(900)
            .max(30 * 86_400)
            .default(86_400),
          depositCap: z
            .union([z.string(), z.number().transform(String)])
            .pipe(z.string().regex(/^\d+(\.\d{1,18})?$/, 'a token amount such as 5 or 0.5'))
            .default('5'),
        })
        .default({}),
      /**
       * How often the worker leader reads agents' open auth-capture holds on chain
       * (daemon/buyer/holds/refresh.ts): what the seller voided or refunded comes back to the limits,
       * and a hold still capturable past its capture deadline is reclaimed, within about this long.
       * Only the cadence: a reclaim still waits for the chain's time to pass the deadline. Env
       * PARX_PAY_HOLD_REFRESH_EVERY_SECONDS.
       */
      holdRefreshEverySeconds: z.coerce.number().min(0.1).max(300).default(5),
    })
    .default({}),
  /** The local profile's ERC-4337 bundler (alto), behind agents' gasless sends on local-base. */
  bundler: z
    .object({
      /**
       * Start it in the background right after the ready line, so an agent's first send is as fast
       * as the others (off: it starts on the first send, which then waits for it, about 3 s).
       */
      prestart: bool.default(true),
    })
    .default({}),
  /** Prometheus metrics (docs/operations.md "Metrics"). */
  metrics: z
    .object({
      /**
       * Off: nothing is recorded and GET /metrics answers NOT_FOUND (the benchmark compares the two). Env
       * PARX_METRICS_ENABLED.
       */
      enabled: bool.default(true),
      /**
       * A listener of its own serving GET /metrics without a token, on `host` (`--metrics-port`,
       * env PARX_METRICS_PORT; 0 picks a free one). Absent (default): only GET /metrics on the API port,
       * behind the operator token.
       */
      port: port.optional(),
      /**
       * The address that listener binds (env PARX_METRICS_HOST), 127.0.0.1 by default whatever the
       * API's `host` is: it has no token and each scrape reads every chain's head, so it is opened
       * wider (a private interface Prometheus reaches) only on purpose, never with the API's 0.0.0.0.
       */
      host: z.string().min(1).default('127.0.0.1'),
    })
    .default({}),
  /** RPC URLs of real networks, by network key. Unused on the local profile. */
  rpc: z.record(z.string(), z.string().url()).default({}),
  /** Service keys on real profiles (hex EVM keys, base58 Solana secret keys). Never logged. */
  keys: z
    .object({
      solver: z.string().optional(),
      facilitator: z.string().optional(),
      solanaSolver: z.string().optional(),
      solanaFacilitator: z.string().optional(),
      /**
       * The x402 batch-settlement receiver authorizer the facilitator offers sellers who delegate
       * claim and refund signatures (hex key). Absent: derived from the facilitator key on the local
       * profile, none elsewhere (/supported then names no receiverAuthorizer).
       */
      batchReceiverAuthorizer: z
        .string()
        .regex(/^0x[0-9a-fA-F]{64}$/, 'a hex private key (0x + 64 hex)')
        .optional(),
      attestors: z.array(z.string()).optional(),
      solanaAttestors: z.array(z.string()).optional(),
      /** 32 bytes of hex: seals the platform's agent wallet keys at rest. */
      platformWallet: z.string().optional(),
      /**
       * Signs the platform's payment receipts (EIP-712, daemon/buyer/receipts/); its address is
       * published in the manifest. The same on every replica. Generated into the keys file on the
       * local profile; absent elsewhere: pays carry no signed receipt.
       */
      receipt: z
        .string()
        .regex(/^0x[0-9a-fA-F]{64}$/, 'a hex private key (0x + 64 hex)')
        .optional(),
      /**
       * Platform wallet keys before a rotation: they only open what they sealed, until `parx keys reseal`
       * (docs/hosting.md "Hosting safely").
       */
      platformWalletPrevious: z
        .array(
          z
            .string()
            .regex(/^(0x)?[0-9a-fA-F]{64}$/, 'each previous platform wallet key is 32 bytes of hex (0x + 64 hex)'),
        )
        .optional(),
    })
    .default({}),
  /** Deployed addresses on real profiles, by network key then name (router, escrow, tokens...). */
  contracts: z.record(z.string(), z.record(z.string(), z.string())).default({}),
})

export type ParxConfig = z.infer<typeof configSchema>
