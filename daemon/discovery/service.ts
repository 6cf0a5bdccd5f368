import { flowRoutes } from '../../src/config/flows.js'
import { type FlowName, flowNames, type ParxConfig } from '../../src/config/schema.js'
import { BaseError } from '../../src/errors/base.js'
import type { Readiness } from '../../src/sdk/discovery/readiness.js'
import type { EvmChain } from '../chains/evm/chain.js'
import type { SolanaChain } from '../chains/solana/chain.js'
import { publicRpcUrl, redactText } from '../redact.js'
import { type RoleDeps, roleStatus } from './role.js'
import type { DaemonUrls, PublicAccounts } from './types.js'

type Check = Readiness['checks'][string]

/** What /api/capabilities, /api/config and /api/readiness answer. Never a secret. */
export type DiscoveryService = {
  capabilities(): {
    profile: string
    flows: Record<string, { enabled: boolean; routes: readonly string[]; reason?: string }>
  }
  publicConfig(): Record<string, unknown>
  /** The wire contract: src/sdk/discovery/readiness.ts. */
  readiness(): Promise<Readiness>
  /** GET /api/openapi.json: the route table's OpenAPI document, serialized. */
  openApi(): Promise<string>
}

export type DiscoveryDeps = {
  config: Pick<ParxConfig, 'profile' | 'auth' | 'limits'>
  /** Flows off for a missing contract address, with the setting that turns each on (src/config/problems.ts). */
  gaps?: Partial<Record<FlowName, string>>
  /** Whether this version registers a flow's routes (daemon/http/served-flows.ts). */
  served?: (flow: FlowName) => boolean
  flowEnabled(flow: FlowName): boolean
  base: EvmChain
  radius: EvmChain
  evm: Record<string, EvmChain>
  solana: SolanaChain
  accounts: PublicAccounts
  urls: DaemonUrls
  /** One round trip to the store. */
  pingStore(): Promise<void>
  /** This process' role and whether it leads the worker duties (shown by readiness on every role). */
  process: RoleDeps
  /** True once a stop began: readiness answers 503 with `draining: true`, so a balancer sends nothing new here. */
  draining?(): boolean
  /**
   * The route table's OpenAPI document (daemon/http/openapi/served.ts, loaded on first use by the composition root).
   */
  openApi(): Promise<string>
}

export function discoveryService(d: DiscoveryDeps): DiscoveryService {
  return {
    capabilities: () => {
      const gaps = d.gaps ?? {}
      const flow = (f: FlowName) => {
        const routes = flowRoutes[f]
        // Only what is served: a flow whose routes this version does not register is off, whatever the config says.
        if (d.served && !d.served(f))
          return {
            enabled: false,
            routes,
            reason: 'not served by this version of parx yet: its routes are not registered',
          }
        // A surface missing a contract address is off, with the setting that turns it on.
        if (gaps[f]) return { enabled: false, routes, reason: gaps[f] }
        if (!d.flowEnabled(f)) {
          const reason =
            f === 'faucet' && d.config.profile !== 'local'
              ? 'the faucet exists only on the local profile'
              : 'disabled in the configuration (serve.flows)'
          return { enabled: false, routes, reason }
        }
        return { enabled: true, routes }
      }
      return { profile: d.config.profile, flows: Object.fromEntries(flowNames.map((f) => [f, flow(f)])) }
    },
    publicConfig: () => ({
      profile: d.config.profile,
      networks: { base: d.base.key, radius: d.radius.key, solana: d.solana.key },
      chainId: d.base.chainId,
      router: d.base.contracts.router ?? null,
      // Cross-chain (docs/cross-chain.md "Cross-chain orders"): where evm-origin orders lock their input, and who
      // checks attestations.
      escrow: d.base.contracts.escrow ?? null,
      verifier: d.base.contracts.verifier ?? null,
      outputSettler: d.base.contracts.outputSettler ?? null,
      // The Solana side of cross-chain: sol-origin orders lock in originSettler, evm-origin ones are filled by
      // destSettler.
      solanaPrograms: {
        originSettler: d.solana.programs.originSettler?.toBase58() ?? null,
        destSettler: d.solana.programs.destSettler?.toBase58() ?? null,
      },
      solver: d.accounts.solver,
      solanaSolver: d.accounts.solanaSolver,
      facilitator: {
        url: d.urls.facilitator,
        evmSigner: d.accounts.facilitator,
        solanaSigner: d.accounts.solanaFacilitator,
      },
      // An RPC URL is shown only when nothing in it can hold a credential (docs/hosting.md "Hosting safely").
      urls: { ...d.urls, rpc: publicRpcUrls(d.urls.rpc) },
      auth: { enforced: d.config.auth.enforce, header: 'x-api-key' },
      limits: d.config.limits,
    }),
    async readiness() {
      const checks: Record<string, Check> = { store: await timed(async () => void (await d.pingStore())) }
      const chainChecks = [
        // Its own request: getBlockNumber would join another caller's request in flight (viem dedupes
        // by client), whose answer may predate the node going silent.
        ...Object.values(d.evm).map(
          (ch) => [ch.key, async () => Number(await ch.client.request({ method: 'eth_blockNumber' }))] as const,
        ),
        [d.solana.key, () => d.solana.connection.getSlot()] as const,
      ]
      const results = await Promise.all(chainChecks.map(([, fn]) => timed(fn)))
      chainChecks.forEach(([key], i) => (checks[key] = results[i]!))
      const role = roleStatus(d.process)
      if (d.draining?.()) return { ready: false, draining: true, checks, ...role }
      return { ready: Object.values(checks).every((c) => c.ok), checks, ...role }
    },
    openApi: () => d.openApi(),
  }
}

async function timed(fn: () => Promise<string | number | undefined | void>): Promise<Check> {
  const t = performance.now()
  try {
    const detail = await Promise.race([
      fn(),
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new BaseError('CHAIN_UNAVAILABLE', 'no answer within 2 s')), 2_000).unref(),
      ),
    ])
    return { ok: true, ms: Math.round(performance.now() - t), ...(detail != null ? { detail } : {}) }
  } catch (e) {
    // The node's words without its URL or the request (viem quotes both): the URL may hold its key.
    return { ok: false, ms: Math.round(performance.now() - t), detail: redactText((e as Error).message) }
  }
}

function publicRpcUrls(rpc: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(rpc).flatMap(([net, url]) => {
      const shown = publicRpcUrl(url)
      return shown === undefined ? [] : [[net, shown]]
    }),
  )
}
