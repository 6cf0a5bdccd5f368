import type { Address, Hex, PublicClient } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'
import { BaseError } from '../../../errors/base.js'
import { CREATE2_FACTORY, EXECUTOR_ADDRESS, EXECUTOR_DEPLOY_DATA, isDelegatedTo } from './executor.js'

/**
 * Makes `account` an X402BatchExecutor account on this chain: deploys the executor through the
 * public CREATE2 factory if no one has yet, then delegates the key to it with a self-sponsored
 * EIP-7702 transaction. Both are idempotent and cost nothing once done.
 *
 * Signs with the account's current pending nonce: run it before anything else sends with the key.
 * `beforeBroadcast` sees each signed transaction first (a daemon persists it there, so a chain that
 * loses it, a crash or a reorg, gets the same bytes again before what was signed after it).
 */
export type EnsureExecutorOptions = {
  beforeBroadcast?(tx: { nonce: number; raw: Hex; purpose: 'executor-deploy' | 'executor-delegation' }): Promise<void>
}

export async function ensureExecutor(
  client: PublicClient,
  account: PrivateKeyAccount,
  chainId: number,
  opts: EnsureExecutorOptions = {},
): Promise<Address> {
  const [executorCode, ownCode] = await Promise.all([
    client.getCode({ address: EXECUTOR_ADDRESS }),
    client.getCode({ address: account.address }),
  ])
  const deployed = !!executorCode && executorCode !== '0x'
  if (deployed && isDelegatedTo(ownCode, EXECUTOR_ADDRESS)) return account.address

  let nonce = await client.getTransactionCount({ address: account.address, blockTag: 'pending' })
  const fees = await client.estimateFeesPerGas()
  const common = { chainId, maxFeePerGas: fees.maxFeePerGas * 2n, maxPriorityFeePerGas: fees.maxPriorityFeePerGas }
  const sendAndWait = async (
    signed: Hex,
    what: string,
    nonce: number,
    purpose: 'executor-deploy' | 'executor-delegation',
  ) => {
    await opts.beforeBroadcast?.({ nonce, raw: signed, purpose })
    const hash = (await client.request({ method: 'eth_sendRawTransaction', params: [signed] })) as Hex
    const receipt = await client.waitForTransactionReceipt({ hash, timeout: 120_000 })
    if (receipt.status !== 'success') throw new BaseError('CHAIN_SETUP_FAILED', `${what} reverted (${hash})`)
  }

  if (!deployed) {
    const factoryCode = await client.getCode({ address: CREATE2_FACTORY })
    if (!factoryCode || factoryCode === '0x') {
      throw new BaseError(
        'CHAIN_SETUP_FAILED',
        `this chain has no CREATE2 factory at ${CREATE2_FACTORY}; ` +
          `deploy X402BatchExecutor at ${EXECUTOR_ADDRESS} another way`,
      )
    }
    const signed = await account.signTransaction({
      ...common,
      type: 'eip1559',
      to: CREATE2_FACTORY,
      data: EXECUTOR_DEPLOY_DATA,
      gas: 1_500_000n,
      nonce,
    })
    await sendAndWait(signed, 'deploying X402BatchExecutor', nonce++, 'executor-deploy')
  }
  if (!isDelegatedTo(ownCode, EXECUTOR_ADDRESS)) {
    // Self-sponsored: the authorization's nonce comes after the transaction's own.
    const authorization = await account.signAuthorization({
      contractAddress: EXECUTOR_ADDRESS,
      chainId,
      nonce: nonce + 1,
    })
    const signed = await account.signTransaction({
      ...common,
      type: 'eip7702',
      to: account.address,
      data: '0x',
      gas: 100_000n,
      nonce,
      authorizationList: [authorization],
    })
    await sendAndWait(signed, 'delegating the facilitator key to X402BatchExecutor', nonce, 'executor-delegation')
  }
  if (!isDelegatedTo(await client.getCode({ address: account.address }), EXECUTOR_ADDRESS)) {
    throw new BaseError(
      'CHAIN_SETUP_FAILED',
      `${account.address} did not take the EIP-7702 delegation to ${EXECUTOR_ADDRESS}`,
    )
  }
  return account.address
}
