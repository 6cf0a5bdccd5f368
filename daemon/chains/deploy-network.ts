import { type Address, createWalletClient, type Hex, isAddress, maxUint256 } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import * as AttestationVerifierMofN from '../../contracts/evm/artifacts/AttestationVerifierMofN.js'
import * as OutputSettler from '../../contracts/evm/artifacts/OutputSettler.js'
import * as PermitToken from '../../contracts/evm/artifacts/PermitToken.js'
import * as RfqSwap from '../../contracts/evm/artifacts/RfqSwap.js'
import * as SourceEscrow from '../../contracts/evm/artifacts/SourceEscrow.js'
import * as UniswapV2Factory from '../../contracts/evm/artifacts/UniswapV2Factory.js'
import * as UsdcToken from '../../contracts/evm/artifacts/UsdcToken.js'
import type { ResolvedConfig } from '../../src/config/load.js'
import { type ConfigProblem, describeProblems, rpcEnv } from '../../src/config/problems.js'
import { BaseError } from '../../src/errors/index.js'
import { networks, USDC } from '../../src/networks/registry.js'
import { authCaptureContractSets } from '../../src/sdk/x402/evm/auth-capture/contracts.js'
import { batchSettlementContracts } from '../../src/sdk/x402/evm/batch-settlement/contracts.js'
import { EXECUTOR_ADDRESS } from '../../src/sdk/x402/evm/executor.js'
import { ensureExecutor } from '../../src/sdk/x402/evm/executor-setup.js'
import { PERMIT2_ADDRESS, X402_EXACT_PERMIT2_PROXY } from '../../src/sdk/x402/evm/permit2.js'
import { X402_UPTO_PERMIT2_PROXY } from '../../src/sdk/x402/evm/upto.js'
import { ATTESTOR_THRESHOLD, MULTICALL3 } from './embedded/evm-deploy.js'
import { evmClient } from './evm/chain.js'
import { rpcHttp } from './rpc-auth.js'
import { rpcIdentityProblem } from './rpc-identity.js'

export type DeployNetworkParameters = {
  config: Readonly<ResolvedConfig>
  /** A network key of the registry: base-sepolia, radius-testnet, base, ... */
  network: string
  progress?: (step: string) => void
}

export type DeployNetworkResult = {
  network: string
  /** Every address the network's config needs: the ones configured before and the ones deployed now. */
  contracts: Record<string, string>
  /** Names deployed by this run (empty when everything was configured already). */
  deployed: string[]
  /** What this run could not do and why (e.g. Permit2 absent from the chain). */
  notes: string[]
}

/**
 * Deploys what a real EVM network is missing, with the configured keys, and seeds nothing: tokens
 * only where none is configured (real networks take theirs from config), the RfqSwap router and
 * the Uniswap v2 factory with one (empty) pair per partner stable where the network swaps, the
 * cross-chain verifier/escrow/output settler where it has cross-chain orders, and the x402
 * executor account of the facilitator key. The solver key deploys and owns; it approves the router
 * and the settler to spend its inventory (an approval moves no money).
 */
export async function deployNetwork(p: DeployNetworkParameters): Promise<DeployNetworkResult> {
  const progress = p.progress ?? (() => {})
  const spec = networks[p.network]
  if (!spec)
    throw new BaseError(
      'BAD_REQUEST',
      `unknown network '${p.network}'; the registry has ${Object.keys(networks).join(', ')}`,
    )
  if (spec.family !== 'evm') {
    throw new BaseError(
      'BAD_REQUEST',
      `${spec.key} is a Solana network: its mints belong to their issuers and are ` +
        `configured in serve.contracts["${spec.key}"]; there is nothing to deploy there yet`,
    )
  }
  if (spec.rpc === 'embedded')
    throw new BaseError(
      'BAD_REQUEST',
      `${spec.key} is embedded: \`parx serve\` and \`parx chains\` deploy it themselves`,
    )
  const { config } = p
  const problems: ConfigProblem[] = []
  const url = config.rpc[spec.key]
  if (!url)
    problems.push({
      setting: `serve.rpc["${spec.key}"]`,
      problem: 'missing',
      fix: `set ${rpcEnv(spec.key)} or serve.rpc["${spec.key}"] in the config file`,
    })
  if (!config.keys.solver || !/^0x[0-9a-fA-F]{64}$/.test(config.keys.solver)) {
    problems.push({
      setting: 'serve.keys.solver',
      problem: config.keys.solver ? 'not a 32-byte hex private key' : 'missing',
      fix: 'set PARX_SOLVER_KEY (0x + 64 hex): it deploys, owns and pays the gas',
    })
  }
  const xchain = spec.features.includes('xchain')
  const attestors = config.keys.attestors ?? []
  if (xchain && (attestors.length !== 3 || !attestors.every((k) => /^0x[0-9a-fA-F]{64}$/.test(k)))) {
    problems.push({
      setting: 'serve.keys.attestors',
      problem: 'needs three hex keys (the verifier is deployed with their addresses)',
      fix: 'set PARX_ATTESTOR_KEYS to three comma-separated hex keys',
    })
  }
  if (url) {
    const identity = await rpcIdentityProblem(spec, url)
    if (identity) problems.push(identity)
  }
  if (problems.length)
    throw new BaseError('CONFIG_INVALID', `cannot deploy on ${spec.key}`, { details: describeProblems(problems) })

  const client = evmClient(spec, url!)
  const owner = privateKeyToAccount(config.keys.solver as Hex)
  const wallet = createWalletClient({ account: owner, chain: client.chain, transport: rpcHttp(url!) })
  const have: Record<string, string> = { ...(config.contracts[spec.key] ?? {}) }
  const deployed: string[] = []
  const notes: string[] = []
  const hasCode = async (address: string | undefined) =>
    !!address && isAddress(address) && ((await client.getCode({ address: address as Address })) ?? '0x') !== '0x'
  const wait = async (hash: Hex, what: string) => {
    const r = await client.waitForTransactionReceipt({ hash, timeout: 180_000 })
    if (r.status !== 'success') throw new BaseError('RELAY_FAILED', `${what} reverted (${hash})`)
    return r
  }
  const deploy = async (name: string, abi: readonly unknown[], bytecode: Hex, args: readonly unknown[]) => {
    progress(`deploying ${name}`)
    const hash = await wallet.deployContract({ abi, bytecode, args } as never)
    const r = await wait(hash, `deploying ${name}`)
    have[name] = r.contractAddress!
    deployed.push(name)
    return r.contractAddress! as Address
  }
  const ensure = async (name: string, abi: readonly unknown[], bytecode: Hex, args: () => readonly unknown[]) => {
    if (await hasCode(have[name])) return have[name] as Address
    if (have[name]) notes.push(`${name}: the configured ${have[name]} has no code on ${spec.key}; deployed a new one`)
    return deploy(name, abi, bytecode, args())
  }

  for (const t of spec.tokens) {
    if (!have[t.symbol] && t.address) have[t.symbol] = t.address
    const art = t.eip3009 ? UsdcToken : PermitToken
    await ensure(t.symbol, art.abi, art.bytecode, () => [
      t.permitDomain!.name,
      t.symbol,
      t.permitDomain!.version,
      t.decimals,
      owner.address,
    ])
  }
  if (spec.features.includes('swap')) {
    await ensure('router', RfqSwap.abi, RfqSwap.bytecode, () => [owner.address])
    const factory = await ensure('factory', UniswapV2Factory.abi, UniswapV2Factory.bytecode as Hex, () => [
      owner.address,
    ])
    for (const t of spec.tokens.filter((t) => t.symbol !== USDC)) {
      const name = `pair:${t.symbol}/${USDC}`
      if (await hasCode(have[name])) continue
      const pairOf = () =>
        client.readContract({
          address: factory,
          abi: UniswapV2Factory.abi,
          functionName: 'getPair',
          args: [have[t.symbol], have[USDC]],
        } as never) as Promise<Address>
      let pair = await pairOf()
      if (/^0x0{40}$/.test(pair)) {
        progress(`creating the ${t.symbol}/${USDC} pool (empty: liquidity is the operator's)`)
        await wait(
          await wallet.writeContract({
            address: factory,
            abi: UniswapV2Factory.abi,
            functionName: 'createPair',
            args: [have[t.symbol], have[USDC]],
          } as never),
          `creating ${name}`,
        )
        pair = await pairOf()
        deployed.push(name)
      }
      have[name] = pair
    }
  }
  if (xchain) {
    const attestorAddresses = attestors.map((k) => privateKeyToAccount(k as Hex).address)
    const verifier = await ensure('verifier', AttestationVerifierMofN.abi, AttestationVerifierMofN.bytecode, () => [
      owner.address,
      attestorAddresses,
      ATTESTOR_THRESHOLD,
    ])
    await ensure('escrow', SourceEscrow.abi, SourceEscrow.bytecode, () => [verifier])
    await ensure('outputSettler', OutputSettler.abi, OutputSettler.bytecode, () => [])
  }
  // The solver pays swap outputs through the router and deliveries through the settler.
  for (const spender of [have.router, have.outputSettler].filter((a): a is string => !!a)) {
    for (const t of spec.tokens) {
      const allowance = (await client.readContract({
        address: have[t.symbol] as Address,
        abi: PermitToken.abi,
        functionName: 'allowance',
        args: [owner.address, spender],
      } as never)) as bigint
      if (allowance >= maxUint256 / 2n) continue
      progress(`approving ${spender} for the solver's ${t.symbol}`)
      await wait(
        await wallet.writeContract({
          address: have[t.symbol] as Address,
          abi: PermitToken.abi,
          functionName: 'approve',
          args: [spender, maxUint256],
        } as never),
        `approving ${t.symbol}`,
      )
    }
  }
  // x402: the canonical contracts a facilitator relies on are the chain's, not ours to deploy.
  if (await hasCode(MULTICALL3)) have.multicall3 ??= MULTICALL3
  else notes.push(`no Multicall3 at ${MULTICALL3} on ${spec.key}: the daemon's batched reads need it`)
  if (!(await hasCode(PERMIT2_ADDRESS)))
    notes.push(`no Permit2 at ${PERMIT2_ADDRESS} on ${spec.key}: the x402 permit2 method is unavailable there`)
  if (!(await hasCode(X402_EXACT_PERMIT2_PROXY)))
    notes.push(
      `no x402 Permit2 proxy at ${X402_EXACT_PERMIT2_PROXY} on ` +
        `${spec.key}: the x402 permit2 method is unavailable there`,
    )
  if (!(await hasCode(X402_UPTO_PERMIT2_PROXY)))
    notes.push(
      `no x402 upto Permit2 proxy at ${X402_UPTO_PERMIT2_PROXY} ` +
        `on ${spec.key}: the x402 upto scheme is unavailable there`,
    )
  // batch-settlement's and auth-capture's contracts are the chain's (CREATE2 at the same address
  // everywhere): each set is reported when all of it is there.
  const sets: Array<[Record<string, string>, string]> = [
    [batchSettlementContracts, 'the x402 batch-settlement scheme is unavailable there'],
    ...Object.entries(authCaptureContractSets).map(([version, set]): [Record<string, string>, string] => [
      set,
      `the x402 auth-capture scheme's ${version} escrow is unavailable there`,
    ]),
  ]
  for (const [set, consequence] of sets) {
    const missing = []
    for (const [name, address] of Object.entries(set)) if (!(await hasCode(address))) missing.push(`${name} ${address}`)
    if (missing.length === 0) for (const [name, address] of Object.entries(set)) have[name] ??= address
    else notes.push(`no ${missing.join(', ')} on ${spec.key}: ${consequence}`)
  }
  if (config.keys.facilitator && /^0x[0-9a-fA-F]{64}$/.test(config.keys.facilitator)) {
    progress('making the facilitator key an x402 executor account')
    try {
      await ensureExecutor(client, privateKeyToAccount(config.keys.facilitator as Hex), spec.chainId!)
    } catch (e) {
      notes.push(
        `the facilitator key could not be set up as an executor account at ` +
          `${EXECUTOR_ADDRESS}: ${(e as Error).message} (the daemon retries at its first payment)`,
      )
    }
  } else
    notes.push(
      'no facilitator key (PARX_FACILITATOR_KEY): its x402 executor ' +
        'account is set up by the daemon at first start instead',
    )
  return { network: spec.key, contracts: have, deployed, notes }
}
