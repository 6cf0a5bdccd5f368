import type { ResolvedConfig } from '../../src/config/load.js'
import { type ConfigProblem, rpcEnv } from '../../src/config/problems.js'
import { BaseError } from '../../src/errors/base.js'
import { type NetworkSpec, networks, profiles } from '../../src/networks/registry.js'
import { rpcEndpoint } from './rpc-auth.js'

const TIMEOUT_MS = 5_000

/** One JSON-RPC call; a URL's userinfo goes as Basic auth, since fetch refuses a URL that holds it. */
async function rpc(rpcUrl: string, method: string): Promise<unknown> {
  const { url, headers } = rpcEndpoint(rpcUrl)
  const res = await fetch(url, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] }),
    signal: AbortSignal.timeout(TIMEOUT_MS),
  })
  if (!res.ok) throw new BaseError('CHAIN_UNAVAILABLE', `HTTP ${res.status}`)
  const body = (await res.json()) as { result?: unknown; error?: { message?: string } }
  if (body.error) throw new BaseError('CHAIN_UNAVAILABLE', body.error.message ?? 'JSON-RPC error')
  return body.result
}

/**
 * Which chain an RPC URL really serves: eth_chainId for EVM, getGenesisHash for Solana (CAIP-2
 * keeps its first 32 characters). A URL of another chain would sign for the wrong network.
 */
export async function rpcIdentityProblem(spec: NetworkSpec, rpcUrl: string): Promise<ConfigProblem | undefined> {
  // Problems name the URL without its userinfo: they are printed and logged.
  const url = rpcEndpoint(rpcUrl).url
  const setting = `serve.rpc["${spec.key}"]`
  const fix = `set ${rpcEnv(spec.key)} or ${setting} to an RPC of ${spec.key}`
  try {
    if (spec.family === 'evm') {
      const got = Number(BigInt(String(await rpc(rpcUrl, 'eth_chainId'))))
      if (got !== spec.chainId)
        return { setting, problem: `${url} serves chain id ${got}, not ${spec.key}'s ${spec.chainId}`, fix }
    } else {
      const hash = String(await rpc(rpcUrl, 'getGenesisHash'))
      const want = spec.caip2.split(':')[1]!
      if (hash.slice(0, 32) !== want)
        return { setting, problem: `${url} has genesis hash ${hash}, not ${spec.key}'s (${want}...)`, fix }
    }
  } catch (e) {
    return {
      setting,
      problem:
        `${url} did not answer ${spec.family === 'evm' ? 'eth_chainId' : 'getGenesisHash'} ` +
        `(${(e as Error).message})`,
      fix,
    }
  }
  return undefined
}

/** Every configured RPC of the profile checked at once, in parallel. */
export async function rpcIdentityProblems(config: Readonly<ResolvedConfig>): Promise<ConfigProblem[]> {
  if (config.profile === 'local') return []
  const checks = profiles[config.profile].networks
    .filter((key) => config.rpc[key])
    .map((key) => rpcIdentityProblem(networks[key]!, config.rpc[key]!))
  return (await Promise.all(checks)).filter((p): p is ConfigProblem => p !== undefined)
}
