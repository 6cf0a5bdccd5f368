import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  type Account,
  type Address,
  type Chain,
  concat,
  getAddress,
  getContractAddress,
  type Hex,
  type PublicClient,
  parseEther,
  type Transport,
  type WalletClient,
} from 'viem'
import * as VerifyingPaymaster from '../../../contracts/evm/artifacts/VerifyingPaymaster.js'
import { BaseError } from '../../../src/errors/base.js'
import { entryPoint08Artifacts } from '../../chains/embedded/aa-packages.js'
import {
  DETERMINISTIC_DEPLOYER,
  ENTRY_POINT_08,
  ENTRY_POINT_08_SALT,
  SIMPLE_7702_ACCOUNT,
  SIMPLE_7702_ACCOUNT_SALT,
} from './canonical.js'

type Wallet = WalletClient<Transport, Chain, Account>

export type AaDeployment = { entryPoint: Address; simple7702Account: Address; paymaster: Address }

export type DeployAaParameters = {
  client: PublicClient
  /** Pays for the deployments, the paymaster's deposit and stake, and owns the paymaster. */
  deployer: Wallet
  /** The sponsor key's address: the paymaster pays for operations it signed. */
  sponsor: Address
  /** ETH the paymaster deposits in the EntryPoint to pay for gas (default 10). */
  deposit?: bigint
}

/**
 * Puts the gasless-send contracts on a local chain: EntryPoint v0.8 and Simple7702Account at their
 * canonical addresses (skipped when already there: a persisted chain keeps them), then our
 * VerifyingPaymaster, deposited and staked. Idempotent for the canonical pair; deploys a new
 * paymaster each call.
 */
export async function deployAa(p: DeployAaParameters): Promise<AaDeployment> {
  const dir = entryPoint08Artifacts()
  const bytecode = (name: string) =>
    (JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8')) as { bytecode: Hex }).bytecode
  await create2(p, bytecode('EntryPoint'), ENTRY_POINT_08_SALT, ENTRY_POINT_08)
  await create2(p, bytecode('Simple7702Account'), SIMPLE_7702_ACCOUNT_SALT, SIMPLE_7702_ACCOUNT)

  const hash = await p.deployer.deployContract({
    abi: VerifyingPaymaster.abi,
    bytecode: VerifyingPaymaster.bytecode,
    args: [ENTRY_POINT_08, p.sponsor, p.deployer.account.address],
  })
  const receipt = await p.client.waitForTransactionReceipt({ hash })
  if (receipt.status !== 'success' || !receipt.contractAddress)
    throw new BaseError('CHAIN_SETUP_FAILED', 'VerifyingPaymaster deployment reverted')
  const paymaster = getAddress(receipt.contractAddress)
  await call(p, {
    address: paymaster,
    abi: VerifyingPaymaster.abi,
    functionName: 'deposit',
    value: p.deposit ?? parseEther('10'),
  })
  // A day's unstake delay and 1 ETH: what bundlers ask of a paymaster that reads its own storage.
  await call(p, {
    address: paymaster,
    abi: VerifyingPaymaster.abi,
    functionName: 'addStake',
    args: [86_400],
    value: parseEther('1'),
  })
  return { entryPoint: ENTRY_POINT_08, simple7702Account: SIMPLE_7702_ACCOUNT, paymaster }
}

async function create2(p: DeployAaParameters, bytecode: Hex, salt: Hex, expected: Address): Promise<void> {
  const at = getContractAddress({ opcode: 'CREATE2', from: DETERMINISTIC_DEPLOYER, salt, bytecode })
  if (at !== expected)
    throw new BaseError(
      'CHAIN_SETUP_FAILED',
      `the installed artifacts would land at ${at}, not ${expected}: wrong @account-abstraction/contracts version`,
    )
  if (((await p.client.getCode({ address: at })) ?? '0x') !== '0x') return
  if (((await p.client.getCode({ address: DETERMINISTIC_DEPLOYER })) ?? '0x') === '0x') {
    throw new BaseError('CHAIN_SETUP_FAILED', `no deterministic deployer at ${DETERMINISTIC_DEPLOYER} on this chain`)
  }
  const hash = await p.deployer.sendTransaction({
    to: DETERMINISTIC_DEPLOYER,
    data: concat([salt, bytecode]),
    gas: 12_000_000n,
  })
  const receipt = await p.client.waitForTransactionReceipt({ hash })
  if (receipt.status !== 'success' || ((await p.client.getCode({ address: at })) ?? '0x') === '0x') {
    throw new BaseError('CHAIN_SETUP_FAILED', `deploying ${expected} through the deterministic deployer failed`)
  }
}

async function call(
  p: DeployAaParameters,
  c: {
    address: Address
    abi: typeof VerifyingPaymaster.abi
    functionName: 'deposit' | 'addStake'
    args?: readonly [number]
    value: bigint
  },
) {
  const hash = await p.deployer.writeContract(c as never)
  const receipt = await p.client.waitForTransactionReceipt({ hash })
  if (receipt.status !== 'success') throw new BaseError('CHAIN_SETUP_FAILED', `paymaster ${c.functionName} reverted`)
}
