import {
  type Address,
  createWalletClient,
  custom,
  getContractAddress,
  type Hex,
  keccak256,
  maxUint256,
  type PublicClient,
  parseEther,
  parseUnits,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import * as AttestationVerifierMofN from '../../../contracts/evm/artifacts/AttestationVerifierMofN.js'
import * as ERC3009DepositCollector from '../../../contracts/evm/artifacts/ERC3009DepositCollector.js'
import * as Multicall3 from '../../../contracts/evm/artifacts/Multicall3.js'
import * as OutputSettler from '../../../contracts/evm/artifacts/OutputSettler.js'
import * as Permit2DepositCollector from '../../../contracts/evm/artifacts/Permit2DepositCollector.js'
import * as Permit2Lite from '../../../contracts/evm/artifacts/Permit2Lite.js'
import * as PermitToken from '../../../contracts/evm/artifacts/PermitToken.js'
import * as RfqSwap from '../../../contracts/evm/artifacts/RfqSwap.js'
import * as SourceEscrow from '../../../contracts/evm/artifacts/SourceEscrow.js'
import * as UniswapV2Factory from '../../../contracts/evm/artifacts/UniswapV2Factory.js'
import * as UniswapV2Pair from '../../../contracts/evm/artifacts/UniswapV2Pair.js'
import * as UsdcToken from '../../../contracts/evm/artifacts/UsdcToken.js'
import * as X402BatchSettlement from '../../../contracts/evm/artifacts/X402BatchSettlement.js'
import * as X402Permit2ProxyLite from '../../../contracts/evm/artifacts/X402Permit2ProxyLite.js'
import * as X402UptoPermit2ProxyLite from '../../../contracts/evm/artifacts/X402UptoPermit2ProxyLite.js'
import { BaseError } from '../../../src/errors/base.js'
import { type NetworkSpec, USDC } from '../../../src/networks/registry.js'
import { authCaptureRuntimeCode } from '../../../src/sdk/x402/evm/auth-capture/contracts.js'
import {
  BATCH_SETTLEMENT_ADDRESS,
  ERC3009_DEPOSIT_COLLECTOR_ADDRESS,
  PERMIT2_DEPOSIT_COLLECTOR_ADDRESS,
} from '../../../src/sdk/x402/evm/batch-settlement/contracts.js'
import { PERMIT2_ADDRESS, X402_EXACT_PERMIT2_PROXY } from '../../../src/sdk/x402/evm/permit2.js'
import { X402_UPTO_PERMIT2_PROXY } from '../../../src/sdk/x402/evm/upto.js'
import { codeHashes, hasCode } from './code-hashes.js'

export const MULTICALL3: Address = '0xcA11bde05977b3631167028862bE2a173976CA11'

/**
 * Contracts that live at fixed addresses on public chains and that clients expect there: placed
 * with anvil_setCode (code only; storage such as Permit2's used nonces survives a re-install).
 */
const CANONICAL: ReadonlyArray<readonly [Address, Hex]> = [
  [MULTICALL3, Multicall3.deployedBytecode],
  [PERMIT2_ADDRESS, Permit2Lite.deployedBytecode],
  [X402_EXACT_PERMIT2_PROXY, X402Permit2ProxyLite.deployedBytecode],
  [X402_UPTO_PERMIT2_PROXY, X402UptoPermit2ProxyLite.deployedBytecode],
  // x402 batch-settlement: code only, so channel balances and refund nonces survive a restart.
  [BATCH_SETTLEMENT_ADDRESS, X402BatchSettlement.deployedBytecode],
  [ERC3009_DEPOSIT_COLLECTOR_ADDRESS, ERC3009DepositCollector.deployedBytecode],
  [PERMIT2_DEPOSIT_COLLECTOR_ADDRESS, Permit2DepositCollector.deployedBytecode],
  // x402 auth-capture, v1.1 and v1.0: escrows, token store implementations and collectors. Code
  // only, so holds, payment states and the operators' token stores (clones) survive a restart.
  ...authCaptureRuntimeCode,
]

/** EIP-2935's block-hash history contract, which Prague chains call at every block. */
export const HISTORY_STORAGE_ADDRESS: Address = '0x0000F90827F1C53a10cb7A02335B175320002935'

/**
 * Idempotent, and run at every start, so data dirs created before a contract joined the list get it too.
 * It also empties the EIP-2935 history contract's code, so the chain stops writing it: anvil hashes
 * the whole state again for every block, and that contract adds a storage slot per block (up to
 * 8,191), so each block took ~3.5 ms longer per 1,000 blocks mined (measured on anvil 1.7.1: an
 * empty block 1.7 ms at the start, 8 ms after 2,000 blocks, 15 ms after 4,000; 1.7 ms throughout
 * without the code). Nothing parx deploys reads it; BLOCKHASH of the last 256 blocks is unchanged.
 */
export async function installCanonical(client: PublicClient): Promise<void> {
  const setCode = (address: Address, code: Hex) =>
    client.request({ method: 'anvil_setCode' as never, params: [address, code] as never })
  // Only what differs is written: a restart usually finds every one in place.
  const hashes = await codeHashes(client, [...CANONICAL.map(([address]) => address), HISTORY_STORAGE_ADDRESS])
  const expected = canonicalHashes()
  const writes = CANONICAL.filter((_, i) => hashes[i] !== expected[i]).map(([address, code]) => setCode(address, code))
  if (hasCode(hashes.at(-1)!)) writes.push(setCode(HISTORY_STORAGE_ADDRESS, '0x'))
  // Together: each is its own address, and the start waits for one round trip instead of eight.
  await Promise.all(writes)
}

let expectedHashes: Hex[] | undefined
const canonicalHashes = () => (expectedHashes ??= CANONICAL.map(([, code]) => keccak256(code)))

/** How much the embedded chains start with: generous, so a newcomer never runs dry. */
export const seed = {
  ethPerServiceAccount: parseEther('10000'),
  solverInventory: '1000000',
  poolDepthPerSide: '5000000',
}

export type DeployParameters = {
  client: PublicClient
  spec: NetworkSpec
  deployerKey: Hex
  solverKey: Hex
  /** Accounts that pay gas (solver, facilitator, attestors): funded with ETH. */
  fund: Address[]
  /** The cross-chain attestors' EVM addresses, where the network has the `xchain` feature. */
  attestors: Address[]
}

/** Signatures a cross-chain claim needs (SPEC: attestor quorum 2 of 3). */
export const ATTESTOR_THRESHOLD = 2n

/**
 * Deploys and seeds one embedded EVM network: Multicall3, the registry's tokens, and where the
 * network swaps, the RfqSwap router, solver inventory and allowance, and Uniswap v2 pools of each
 * partner stable against USDC; where it has cross-chain orders, the verifier (owned by the deployer,
 * the attestors at threshold 2), the escrow and the output settler, with solver allowance to the
 * settler. Returns the addresses by name (token symbols, router, factory, `pair:<SYM>/USDC`,
 * verifier, escrow, outputSettler).
 */
export async function deployLocalEvm(p: DeployParameters): Promise<Record<string, Address>> {
  const { client, spec } = p
  const { deployer, solver, deploy, call, sent, approveSolver } = await deploySession(p)

  const out: Record<string, Address> = { multicall3: MULTICALL3 }
  for (const t of spec.tokens) {
    const art = t.eip3009 ? UsdcToken : PermitToken
    out[t.symbol] = await deploy(art.abi, art.bytecode, [
      t.permitDomain!.name,
      t.symbol,
      t.permitDomain!.version,
      t.decimals,
      deployer.address,
    ])
  }
  const mint = (symbol: string, to: Address, human: string) =>
    call(out[symbol]!, PermitToken.abi, 'mint', [to, parseUnits(human, decimalsOf(spec, symbol))])

  if (spec.features.includes('swap')) {
    out.router = await deploy(RfqSwap.abi, RfqSwap.bytecode, [solver.address])
    out.factory = await deploy(UniswapV2Factory.abi, UniswapV2Factory.bytecode as Hex, [deployer.address])
    for (const t of spec.tokens) await mint(t.symbol, solver.address, seed.solverInventory)
    for (const t of spec.tokens.filter((t) => t.symbol !== USDC)) {
      await call(out.factory, UniswapV2Factory.abi, 'createPair', [out[t.symbol], out[USDC]])
    }
    await waitAll(client, sent.splice(0))
    for (const t of spec.tokens.filter((t) => t.symbol !== USDC)) {
      const pair = (await client.readContract({
        address: out.factory,
        abi: UniswapV2Factory.abi,
        functionName: 'getPair',
        args: [out[t.symbol]!, out[USDC]!],
      } as never)) as Address
      out[`pair:${t.symbol}/${USDC}`] = pair
      await mint(t.symbol, pair, seed.poolDepthPerSide)
      await mint(USDC, pair, seed.poolDepthPerSide)
      await call(pair, UniswapV2Pair.abi, 'mint', [deployer.address])
    }
  }
  if (spec.features.includes('xchain'))
    Object.assign(out, await deployXchain({ deploy, attestors: p.attestors, owner: deployer.address }))

  // The solver pays swap outputs through the router and cross-chain deliveries through the settler.
  await approveSolver(out, [out.router, out.outputSettler])
  await waitAll(client, sent)
  return out
}

/**
 * A data dir made before the cross-chain contracts existed has everything else: deploys just those
 * (and the solver's allowance to the settler) so an upgrade gets cross-chain without --fresh.
 * Returns the completed addresses, or undefined when nothing was missing.
 */
export async function deployMissingXchain(
  p: DeployParameters,
  existing: Record<string, string>,
): Promise<Record<string, string> | undefined> {
  if (!p.spec.features.includes('xchain') || (existing.verifier && existing.escrow && existing.outputSettler))
    return undefined
  const { deployer, deploy, sent, approveSolver } = await deploySession(p)
  const added = await deployXchain({ deploy, attestors: p.attestors, owner: deployer.address })
  const out = { ...existing, ...added }
  await approveSolver(out, [added.outputSettler])
  await waitAll(p.client, sent)
  return out
}

/**
 * Funded deployer and solver wallets with locally counted nonces, so deployments go out without waiting on each other.
 */
async function deploySession(p: DeployParameters) {
  const { client, spec } = p
  const deployer = privateKeyToAccount(p.deployerKey)
  const solver = privateKeyToAccount(p.solverKey)
  // Through the public client's own transport (lean-transport.ts): viem's http() would make the first
  // fetch of the start, which loads Node's bundled undici (~50 ms of CPU) for these transactions alone.
  const transport = custom({ request: (args) => client.request(args as never) })
  const dw = createWalletClient({ account: deployer, chain: client.chain, transport })
  const sw = createWalletClient({ account: solver, chain: client.chain, transport })

  for (const a of new Set([deployer.address, solver.address, ...p.fund])) {
    await client.request({
      method: 'anvil_setBalance' as never,
      params: [a, `0x${seed.ethPerServiceAccount.toString(16)}`] as never,
    })
  }

  let nonce = await client.getTransactionCount({ address: deployer.address })
  const sent: Hex[] = []
  const deploy: Deploy = async (abi, bytecode, args) => {
    const address = getContractAddress({ from: deployer.address, nonce: BigInt(nonce) })
    sent.push(await dw.deployContract({ abi, bytecode, args, nonce: nonce++, gas: 6_000_000n } as never))
    return address
  }
  const call = async (address: Address, abi: readonly unknown[], functionName: string, args: readonly unknown[]) =>
    sent.push(await dw.writeContract({ address, abi, functionName, args, nonce: nonce++, gas: 3_000_000n } as never))
  /** Unlimited allowance of every token of the network from the solver to each spender. */
  const approveSolver = async (tokens: Record<string, string>, spenders: Array<string | undefined>) => {
    let solverNonce = await client.getTransactionCount({ address: solver.address })
    for (const spender of spenders.filter((a) => a !== undefined)) {
      for (const t of spec.tokens) {
        sent.push(
          await sw.writeContract({
            address: tokens[t.symbol] as Address,
            abi: PermitToken.abi,
            functionName: 'approve',
            args: [spender, maxUint256],
            nonce: solverNonce++,
            gas: 100_000n,
          } as never),
        )
      }
    }
  }
  return { deployer, solver, deploy, call, sent, approveSolver }
}

type Deploy = (abi: readonly unknown[], bytecode: Hex, args: readonly unknown[]) => Promise<Address>

/** The three cross-chain contracts; the escrow is bound to the verifier for good. */
async function deployXchain(p: { deploy: Deploy; attestors: Address[]; owner: Address }) {
  const verifier = await p.deploy(AttestationVerifierMofN.abi, AttestationVerifierMofN.bytecode, [
    p.owner,
    p.attestors,
    ATTESTOR_THRESHOLD,
  ])
  const escrow = await p.deploy(SourceEscrow.abi, SourceEscrow.bytecode, [verifier])
  const outputSettler = await p.deploy(OutputSettler.abi, OutputSettler.bytecode, [])
  return { verifier, escrow, outputSettler }
}

function decimalsOf(spec: NetworkSpec, symbol: string): number {
  return spec.tokens.find((t) => t.symbol === symbol)!.decimals
}

async function waitAll(client: PublicClient, hashes: Hex[]): Promise<void> {
  for (const hash of hashes) {
    const r = await client.waitForTransactionReceipt({ hash, pollingInterval: 20 })
    if (r.status !== 'success')
      throw new BaseError('CHAIN_SETUP_FAILED', `embedded deployment transaction ${hash} reverted`)
  }
}
