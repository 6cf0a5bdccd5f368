import {
  type Abi,
  type Address,
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  createTestClient,
  createWalletClient,
  defineChain,
  getAddress,
  type Hex,
  http,
  keccak256,
  parseEther,
  type TransactionReceipt,
  toHex,
} from 'viem'
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'
import { expect } from 'vitest'
import { startAnvil } from '../../../daemon/chains/embedded/anvil.js'
import { LOCAL_BASE_CHAIN_ID } from '../../../src/networks/registry.js'

export const MULTICALL3: Address = '0xcA11bde05977b3631167028862bE2a173976CA11'

/** A contract call as the helpers take it; tests keep viem's typed `readContract` for reads. */
export type Call = { address: Address; abi: Abi | readonly unknown[]; functionName: string; args?: readonly unknown[] }

/** Gas is fixed so a call expected to revert is still mined (estimation would refuse to send it). */
const GAS = 3_000_000n

/**
 * One anvil on a free port with four funded keys (deterministic, so failures reproduce), clients
 * that poll every 50 ms, and helpers that send, deploy and assert custom-error reverts.
 */
export async function startTestChain() {
  const anvil = await startAnvil({ chainId: LOCAL_BASE_CHAIN_ID })
  const chain = defineChain({
    id: LOCAL_BASE_CHAIN_ID,
    name: 'parx contracts test',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [anvil.rpcUrl] } },
    contracts: { multicall3: { address: MULTICALL3 } },
  })
  const transport = http(anvil.rpcUrl)
  const client = createPublicClient({ chain, transport, pollingInterval: 50 })
  const testClient = createTestClient({ chain, transport, mode: 'anvil', pollingInterval: 50 })
  const key = (label: string) => privateKeyToAccount(keccak256(toHex(`parx contracts test ${label}`)))
  const accounts = { deployer: key('deployer'), solver: key('solver'), user: key('user'), other: key('other') }
  for (const a of Object.values(accounts))
    await testClient.setBalance({ address: a.address, value: parseEther('1000') })

  const wallet = (account: PrivateKeyAccount) => createWalletClient({ account, chain, transport, pollingInterval: 50 })

  /** Sends and waits; throws when the transaction reverted, so a test never mistakes a revert for success. */
  async function send(from: PrivateKeyAccount, call: Call): Promise<TransactionReceipt> {
    const receipt = await sendRaw(from, call)
    if (receipt.status !== 'success')
      throw new Error(`${call.functionName} reverted: ${await revertReason(from, call)}`)
    return receipt
  }

  /**
   * Sends and waits without judging the outcome (for reverts a simulation cannot reproduce, such as
   * at a set timestamp).
   */
  async function sendRaw(from: PrivateKeyAccount, call: Call): Promise<TransactionReceipt> {
    const hash = await wallet(from).writeContract({ ...call, gas: GAS } as never)
    return client.waitForTransactionReceipt({ hash })
  }

  async function deploy(abi: Abi | readonly unknown[], bytecode: Hex, args: readonly unknown[]): Promise<Address> {
    const hash = await wallet(accounts.deployer).deployContract({ abi, bytecode, args, gas: 8_000_000n } as never)
    const receipt = await client.waitForTransactionReceipt({ hash })
    if (receipt.status !== 'success' || !receipt.contractAddress) throw new Error('deployment reverted')
    return getAddress(receipt.contractAddress)
  }

  /** The custom error a call reverts with, by name, from a simulation against the latest block. */
  async function revertReason(from: PrivateKeyAccount, call: Call): Promise<string | undefined> {
    try {
      await client.simulateContract({ ...call, account: from } as never)
      return undefined
    } catch (e) {
      const reverted = e instanceof BaseError ? e.walk((c) => c instanceof ContractFunctionRevertedError) : null
      if (reverted instanceof ContractFunctionRevertedError) {
        // Error(string) reverts are named by their message; custom errors by their name.
        const name = reverted.data?.errorName
        return name === undefined || name === 'Error' ? reverted.reason : name
      }
      throw e
    }
  }

  /**
   * Asserts the call fails with `errorName` both in simulation and when actually mined, so the
   * caller's before/after state checks cover a transaction that really ran and reverted.
   */
  async function expectRevert(from: PrivateKeyAccount, call: Call, errorName: string): Promise<void> {
    expect(await revertReason(from, call), `${call.functionName} should revert with ${errorName}`).toBe(errorName)
    expect((await sendRaw(from, call)).status).toBe('reverted')
  }

  async function latestTimestamp(): Promise<bigint> {
    return (await client.getBlock()).timestamp
  }

  return {
    anvil,
    chain,
    client,
    testClient,
    accounts,
    wallet,
    send,
    sendRaw,
    deploy,
    expectRevert,
    revertReason,
    latestTimestamp,
    stop: () => anvil.stop(),
  }
}

export type TestChain = Awaited<ReturnType<typeof startTestChain>>
