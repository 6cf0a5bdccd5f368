import { createSmartAccountClient } from 'permissionless'
import { to7702SimpleSmartAccount } from 'permissionless/accounts'
import {
  type Address,
  type Chain,
  type Hex,
  http,
  type LocalAccount,
  type PublicClient,
  RpcError,
  RpcRequestError,
} from 'viem'
import {
  formatUserOperationReceipt,
  formatUserOperationRequest,
  getUserOperationHash,
  type RpcUserOperation,
  type RpcUserOperationReceipt,
  type UserOperationReceipt,
} from 'viem/account-abstraction'
import { prepareAuthorization } from 'viem/actions'
import { BaseError } from '../../../src/errors/index.js'
import { ENTRY_POINT_08, SIMPLE_7702_ACCOUNT } from './canonical.js'
import type { Sponsor } from './sponsor.js'

export type AgentAccountParameters = {
  /** The agent's key: its EOA address is the account (EIP-7702), so permits it signs still verify. */
  owner: LocalAccount
  client: PublicClient
  chain: Chain
  /** The bundler's JSON-RPC URL (alto, 127.0.0.1). */
  bundlerUrl: string
  sponsor: Sponsor
}

export type Call = { to: Address; data?: Hex; value?: bigint }

/**
 * What names a prepared operation on chain (the EntryPoint's UserOperationEvent carries its hash)
 * and the last second it can be included: its sponsor signature's validUntil (./sponsor.ts), after
 * which the EntryPoint refuses it, so an operation not included by then never will be.
 */
export type PreparedUserOp = { entryPoint: Address; sender: Address; hash: Hex; validUntil: bigint }

/**
 * An agent wallet that sends without holding gas: its EOA delegates to EntryPoint v0.8's
 * Simple7702Account (the delegation rides in the first user operation's eip7702Auth), our
 * paymaster pays, and `pimlico_sendUserOperationNow` bundles at once and answers with the receipt.
 *
 * @example
 * const agent = await createAgentAccount({ owner, client, chain, bundlerUrl: alto.url, sponsor })
 * const receipt = await agent.sendNow([{ to: token, data: transferData }])
 */
export async function createAgentAccount(p: AgentAccountParameters) {
  const account = await to7702SimpleSmartAccount({
    client: p.client,
    owner: p.owner,
    entryPoint: { address: ENTRY_POINT_08, version: '0.8' },
    accountLogicAddress: SIMPLE_7702_ACCOUNT,
  })
  const bundler = createSmartAccountClient({
    account,
    chain: p.chain,
    bundlerTransport: http(p.bundlerUrl, { retryCount: 0 }),
    paymaster: p.sponsor,
    // The bundler's own price: it refuses operations priced below what it would pay to include them.
    userOperation: { estimateFeesPerGas: async () => bundlerGasPrice(p.bundlerUrl) },
  })

  /**
   * The EIP-7702 authorization that makes the EOA a Simple7702Account, signed by the owner, while
   * the EOA does not delegate yet (viem only fills a stub for estimation). The bundler's
   * transaction carries it, so the agent still pays nothing.
   */
  async function delegation() {
    const code = (await p.client.getCode({ address: p.owner.address })) ?? '0x'
    if (code.toLowerCase() === `0xef0100${SIMPLE_7702_ACCOUNT.slice(2).toLowerCase()}`) return undefined
    const unsigned = await prepareAuthorization(p.client, { account: p.owner, address: SIMPLE_7702_ACCOUNT })
    return p.owner.signAuthorization!(unsigned)
  }

  // Kept beside each operation prepare() returns (the RPC form loses the delegation the hash covers).
  const identities = new WeakMap<RpcUserOperation<'0.8'>, PreparedUserOp>()

  /** Prepares and signs the calls as one sponsored user operation (estimation and sponsor signature included). */
  async function prepare(calls: readonly Call[]): Promise<RpcUserOperation<'0.8'>> {
    return guard(async () => {
      const authorization = await delegation()
      const prepared = await bundler.prepareUserOperation({ calls, ...(authorization ? { authorization } : {}) })
      const signature = await account.signUserOperation(prepared)
      const op = formatUserOperationRequest({ ...prepared, signature }) as RpcUserOperation<'0.8'>
      const hash = getUserOperationHash({
        chainId: p.chain.id,
        entryPointAddress: ENTRY_POINT_08,
        entryPointVersion: '0.8',
        userOperation: { ...prepared, signature } as never,
      })
      identities.set(op, {
        entryPoint: ENTRY_POINT_08,
        sender: account.address,
        hash,
        validUntil: BigInt(`0x${(op.paymasterData ?? '0x').slice(2, 14) || '0'}`),
      })
      return op
    })
  }

  /** The identity of an operation this account prepared (undefined for one it did not). */
  const identify = (op: RpcUserOperation<'0.8'>): PreparedUserOp | undefined => identities.get(op)

  /**
   * Bundles a signed operation at once; resolves with its receipt (alto waits for inclusion). Once
   * the operation is sent, only two failures say nothing moved: the bundler refused the connection
   * (BUNDLER_UNAVAILABLE) or answered with a JSON-RPC error (RELAY_FAILED). Anything else (a
   * timeout, a connection cut before the answer) is SEND_PENDING: alto may still bundle it.
   */
  async function submit(op: RpcUserOperation<'0.8'>): Promise<UserOperationReceipt> {
    try {
      const rpc = await bundler.request({
        method: 'pimlico_sendUserOperationNow' as never,
        params: [op, ENTRY_POINT_08] as never,
      })
      return formatUserOperationReceipt(rpc as unknown as RpcUserOperationReceipt)
    } catch (e) {
      if (e instanceof BaseError || refusedConnection(e) || bundlerAnswered(e)) return guard(() => Promise.reject(e))
      const id = identify(op)
      const until = id ? ` until ${new Date(Number(id.validUntil) * 1000).toISOString()}` : ''
      throw new BaseError(
        'SEND_PENDING',
        `the bundler took the user operation${id ? ` ${id.hash}` : ''} and did ` +
          `not answer (${(e as Error).message.split('\n')[0]}); it may still be ` +
          `included${until}, and the amount stays reserved until the chain decides`,
        { cause: e },
      )
    }
  }

  async function guard<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run()
    } catch (e) {
      if (e instanceof BaseError) throw e
      if (unreachable(e))
        throw new BaseError('BUNDLER_UNAVAILABLE', `the bundler at ${p.bundlerUrl} did not answer; nothing was spent`, {
          cause: e,
        })
      // The bundler answered but refused or could not include the operation: the agent's tokens did not move.
      const details = (e as { details?: string }).details ?? (e as Error).message
      throw new BaseError('RELAY_FAILED', `the bundler refused the user operation (${details}); nothing was spent`, {
        cause: e,
      })
    }
  }

  return {
    address: account.address,
    account,
    prepare,
    identify,
    submit,
    sendNow: async (calls: readonly Call[]) => submit(await prepare(calls)),
  }
}

async function bundlerGasPrice(url: string): Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'pimlico_getUserOperationGasPrice', params: [] }),
  })
  const body = (await res.json()) as {
    result?: { fast: { maxFeePerGas: Hex; maxPriorityFeePerGas: Hex } }
    error?: { message: string }
  }
  if (!body.result)
    throw new BaseError(
      'RELAY_FAILED',
      `the bundler refused the user operation (pimlico_getUserOperationGasPrice: ` +
        `${body.error?.message ?? res.status}); nothing was spent`,
    )
  return {
    maxFeePerGas: BigInt(body.result.fast.maxFeePerGas),
    maxPriorityFeePerGas: BigInt(body.result.fast.maxPriorityFeePerGas),
  }
}

/** A refused connection: the request never reached the bundler. */
function refusedConnection(e: unknown): boolean {
  for (let c: unknown = e; c; c = (c as { cause?: unknown }).cause)
    if ((c as { code?: string }).code === 'ECONNREFUSED') return true
  return false
}

/** The bundler answered, with a JSON-RPC error: it refused the operation, which then never moves anything. */
function bundlerAnswered(e: unknown): boolean {
  for (let c: unknown = e; c; c = (c as { cause?: unknown }).cause)
    if (c instanceof RpcError || c instanceof RpcRequestError) return true
  return false
}

/** A refused connection anywhere in the cause chain: the bundler is down, not the operation bad. */
function unreachable(e: unknown): boolean {
  for (let c: unknown = e; c; c = (c as { cause?: unknown }).cause) {
    const s = `${(c as { code?: string }).code ?? ''} ${(c as Error).message ?? ''}`
    if (/ECONNREFUSED|fetch failed|HTTP request failed/.test(s)) return true
  }
  return false
}
