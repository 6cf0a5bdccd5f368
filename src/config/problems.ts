import bs58 from 'bs58'
import { isAddress } from 'viem'
import { type NetworkSpec, networks, profiles } from '../networks/registry.js'
import { contractsEnv, rpcEnv } from './env-names.js'
import type { ResolvedConfig } from './load.js'
import type { ConfigProblem } from './problem.js'
import { publicOriginProblems } from './public-origin.js'
import type { FlowName } from './schema.js'

export { type ConfigProblem, describeProblems } from './problem.js'
export { contractsEnv, rpcEnv }

const hex32 = (s: string) => /^0x[0-9a-fA-F]{64}$/.test(s)
const solanaSecret = (s: string) => {
  try {
    return bs58.decode(s).length === 64
  } catch {
    return false
  }
}
const solanaPubkey = (s: string) => {
  try {
    return bs58.decode(s).length === 32
  } catch {
    return false
  }
}

/**
 * Every problem of a testnet or mainnet configuration at once: the public origin, service keys,
 * RPC URLs and the token addresses each network needs (a daemon cannot price, pay or settle
 * without its tokens). The local profile makes its own keys, chains and contracts: only a public
 * origin it was given can be wrong there.
 */
export function configProblems(config: Readonly<ResolvedConfig>): ConfigProblem[] {
  // The public origin is checked on every profile when given, and required off the local one.
  if (config.profile === 'local') return publicOriginProblems(config)
  const out: ConfigProblem[] = [...publicOriginProblems(config)]
  const k = config.keys
  const evmKey = (value: string | undefined, setting: string, env: string) => {
    if (!value)
      out.push({ setting, problem: 'missing', fix: `set ${env} (0x + 64 hex) or ${setting} in the config file` })
    else if (!hex32(value))
      out.push({ setting, problem: 'not a 32-byte hex private key', fix: `set ${env} to 0x + 64 hex` })
  }
  const solKey = (value: string | undefined, setting: string, env: string) => {
    if (!value)
      out.push({
        setting,
        problem: 'missing',
        fix: `set ${env} (base58 64-byte secret key) or ${setting} in the config file`,
      })
    else if (!solanaSecret(value))
      out.push({ setting, problem: 'not a base58 64-byte Solana secret key', fix: `set ${env} to a base58 secret key` })
  }
  const three = (
    values: readonly string[] | undefined,
    setting: string,
    env: string,
    check: (v: string) => boolean,
    what: string,
  ) => {
    if (values?.length !== 3) {
      out.push({
        setting,
        problem: values ? `has ${values.length} keys, needs 3` : 'missing',
        fix: `set ${env} to three comma-separated ${what}, or ${setting} in the config file`,
      })
    } else if (!values.every(check))
      out.push({
        setting,
        problem: `an entry is not a ${what.replace(/s$/, '')}`,
        fix: `set ${env} to three comma-separated ${what}`,
      })
  }
  evmKey(k.solver, 'serve.keys.solver', 'PARX_SOLVER_KEY')
  evmKey(k.facilitator, 'serve.keys.facilitator', 'PARX_FACILITATOR_KEY')
  solKey(k.solanaSolver, 'serve.keys.solanaSolver', 'PARX_SOLANA_SOLVER_KEY')
  solKey(k.solanaFacilitator, 'serve.keys.solanaFacilitator', 'PARX_SOLANA_FACILITATOR_KEY')
  three(k.attestors, 'serve.keys.attestors', 'PARX_ATTESTOR_KEYS', hex32, 'hex private keys')
  three(
    k.solanaAttestors,
    'serve.keys.solanaAttestors',
    'PARX_SOLANA_ATTESTOR_KEYS',
    solanaSecret,
    'base58 secret keys',
  )
  if (!config.auth.operatorToken) {
    out.push({
      setting: 'serve.auth.operatorToken',
      problem: 'missing',
      fix: 'set PARX_OPERATOR_TOKEN (24+ characters) or serve.auth.operatorToken in the config file',
    })
  }
  for (const key of profiles[config.profile].networks) {
    const spec = networks[key]!
    if (!config.rpc[key])
      out.push({
        setting: `serve.rpc["${key}"]`,
        problem: 'missing',
        fix: `set ${rpcEnv(key)} or serve.rpc["${key}"] in the config file`,
      })
    out.push(...addressProblems(spec, config.contracts[key] ?? {}))
  }
  return out
}

/** Token addresses are required; every address given must be well-formed for its family. */
function addressProblems(spec: NetworkSpec, given: Record<string, string>): ConfigProblem[] {
  const out: ConfigProblem[] = []
  const valid = spec.family === 'evm' ? (a: string) => isAddress(a, { strict: false }) : solanaPubkey
  const fixFor = (name: string) =>
    `set serve.contracts["${spec.key}"].${name} in the config file or "${name}" in ` +
    `${contractsEnv(spec.key)} (JSON), e.g. from \`parx deploy --network ${spec.key}\``
  for (const t of spec.tokens) {
    if (!given[t.symbol] && !t.address)
      out.push({
        setting: `serve.contracts["${spec.key}"].${t.symbol}`,
        problem: `missing (the ${t.symbol} ${spec.family === 'evm' ? 'token' : 'mint'})`,
        fix: fixFor(t.symbol),
      })
  }
  for (const [name, address] of Object.entries(given)) {
    if (!valid(address))
      out.push({
        setting: `serve.contracts["${spec.key}"].${name}`,
        problem: `'${address}' is not ${spec.family === 'evm' ? 'an EVM address' : 'a base58 public key'}`,
        fix: fixFor(name),
      })
  }
  return out
}

/**
 * Surfaces that cannot serve for want of a contract that is not required to start: they stay off
 * and /api/capabilities says why. Base swaps need the router; EVM-origin cross-chain orders need
 * the escrow and verifier on Base and dest_settler on Solana; Solana-origin ones the output settler
 * on Base and origin_settler on Solana. (Missing tokens refuse start instead: see configProblems.)
 */
export function surfaceGaps(config: Readonly<ResolvedConfig>): Partial<Record<FlowName, string>> {
  if (config.profile === 'local') return {}
  const base = profiles[config.profile].base
  const c = config.contracts[base] ?? {}
  const out: Partial<Record<FlowName, string>> = {}
  const need = (names: string[]) => names.filter((n) => !c[n])
  const routerGap = need(['router'])
  if (routerGap.length) {
    const reason =
      `no router address for ${base}: ` + `set serve.contracts["${base}"].router or "router" in ${contractsEnv(base)}`
    out['base.swap'] = out['base.entry'] = out['base.redeem'] = reason
  }
  // Each rail locks on one chain and fills on the other: both sides must be there.
  const sol = profiles[config.profile].solana
  const s = config.contracts[sol] ?? {}
  const rail = (flow: 'xchain.evm-origin' | 'xchain.sol-origin', evm: string[], solana: string) => {
    const gaps = [...evm.filter((n) => !c[n]).map((n) => `${base} ${n}`), ...(s[solana] ? [] : [`${sol} ${solana}`])]
    if (gaps.length)
      out[flow] =
        `no ${gaps.join(', ')} address: set them in serve.contracts (or ${contractsEnv(base)} ` +
        `/ ${contractsEnv(sol)}; \`parx deploy --network ${base}\` deploys the Base side)`
  }
  rail('xchain.evm-origin', ['escrow', 'verifier'], 'destSettler')
  rail('xchain.sol-origin', ['outputSettler'], 'originSettler')
  return out
}
