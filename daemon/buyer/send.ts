import {
  type Address,
  createWalletClient,
  encodeFunctionData,
  erc20Abi,
  getAddress,
  type Hex,
  type Log,
  parseEther,
  toHex,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { BaseError } from '../../src/errors/index.js'
import { networks } from '../../src/networks/registry.js'
import { sendMethodOf } from '../../src/sdk/platform/networks.js'
import type { SendResult } from '../../src/sdk/platform/wallet.js'
import { toBaseUnits } from '../../src/sdk/units.js'
import type { EvmChain } from '../chains/evm/chain.js'
import { rpcHttp } from '../chains/rpc-auth.js'
import type { AgentRow } from '../platform/store.js'
import type { PreparedUserOp } from './aa/agent-account.js'
import type { AaRuntime } from './aa/runtime.js'
import { type ApprovalGateDeps, gateApproval } from './approvals/gate.js'
import { usdMicros } from './limits.js'
import { enforce, NO_SCOPED_RULES, type ScopedRules } from './policy/rules.js'
import type { SpendsLedger } from './spends.js'

export type SendDeps = {
  chain: EvmChain
  spends: SpendsLedger
  walletKey(agent: AgentRow): Hex
  /** AA networks: the ERC-4337 stack (undefined where this deployment has none). */
  aa?: AaRuntime
  /**
   * Direct networks on the local profile: keeps the agent's wallet supplied with the native coin that stands in for the
   * fee token.
   */
  topUpFees?: (address: Address) => Promise<void>
  /** The agent's and its user's payee and network rules (recipient, network, token); none when left out. */
  rules?: ScopedRules
  /** Approval above the agent's threshold (daemon/buyer/approvals/). */
  approvals?: ApprovalGateDeps
}

/**
 * One send from an agent's wallet. Order matters for money: the payee and network rules, then the limits are checked
 * and the amount
 * reserved in the store first (LIMIT_EXCEEDED: nothing recorded, nothing signed), then the balance,
 * then the signing and submission; a send that moves nothing releases its reservation, one that
 * lands is confirmed with its transaction before the answer.
 */
export async function sendFromAgent(
  d: SendDeps,
  agent: AgentRow,
  body: { to: Address; amount: string; token: string; approvalId?: string },
): Promise<SendResult> {
  const token = d.chain.tokens[body.token]
  if (!token)
    throw new BaseError('UNKNOWN_TOKEN', `${body.token} has no address on ${agent.network} in this deployment`)
  const raw = toBaseUnits(body.amount, token.decimals)
  const method = sendMethodOf(networks[agent.network]!)
  if (method === 'userOperation' && !d.aa)
    throw new BaseError(
      'BUNDLER_UNAVAILABLE',
      `no ERC-4337 bundler is configured for ${agent.network}; nothing was spent`,
    )
  const network = networks[agent.network]!
  enforce(
    d.rules ?? NO_SCOPED_RULES,
    {
      payTo: body.to,
      network: { key: network.key, caip2: network.caip2 },
      tokens: [{ symbol: token.symbol, address: token.address }],
    },
    body.amount,
  )
  if (d.approvals) {
    const request = { to: getAddress(body.to), amount: body.amount, token: token.symbol }
    await gateApproval(d.approvals, agent, {
      kind: 'send',
      request,
      target: request.to,
      method: null,
      amount: body.amount,
      token: token.symbol,
      amountMicros: usdMicros(body.amount, token.decimals),
      approvalId: body.approvalId,
    })
  }
  const spend = await d.spends.reserve({
    agentId: agent.id,
    kind: 'send',
    amountMicros: usdMicros(body.amount, token.decimals),
    token: token.symbol,
    amount: body.amount,
    recipient: body.to,
  })
  const from = getAddress(agent.address)
  let submitted = false
  try {
    const held = await d.chain.client.readContract({
      address: token.address,
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [from],
    })
    if (held < raw)
      throw new BaseError(
        'INSUFFICIENT_BALANCE',
        `${from} holds less than ${body.amount} ${token.symbol} on ${agent.network}; nothing was spent`,
      )
    const data = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [body.to, raw] })
    const { transaction, userOperation } = await callFromAgent(
      d,
      agent,
      { to: token.address, data },
      async (op) => {
        // Kept before the bundler sees it: a send whose answer is lost is then decided from the chain
        // (pending-spends.ts).
        if (op) {
          const { entryPoint, sender, hash, validUntil } = op
          await d.spends.signed(spend.id, {
            kind: 'userOp',
            entryPoint,
            sender,
            hash,
            fromBlock: await d.chain.client.getBlockNumber({ cacheTime: 0 }),
            validBefore: validUntil,
          })
        }
        submitted = true
      },
      'the tokens did not move',
    )
    await d.spends.confirm(spend.id, { tx: transaction, userOp: userOperation })
    return {
      id: spend.id,
      agentId: agent.id,
      network: agent.network,
      method,
      token: token.symbol,
      amount: body.amount,
      from,
      to: body.to,
      transaction,
      userOperation,
      status: 'confirmed',
      createdAt: new Date(Number(spend.created_at)).toISOString(),
    }
  } catch (e) {
    // The bundler took the operation and never answered: alto may still bundle it, so the amount
    // stays reserved until the worker reads the outcome from the chain (recheckPendingSpends).
    if (e instanceof BaseError && e.code === 'SEND_PENDING') {
      await d.spends.hold(spend.id, e.message)
      throw e
    }
    // A failure before submission, or a revert, moved nothing: the reservation stops counting.
    // One after submission without an answer keeps it (the tokens may have moved).
    const movedNothing =
      !submitted || (e instanceof BaseError && (e.code === 'RELAY_FAILED' || e.code === 'BUNDLER_UNAVAILABLE'))
    if (movedNothing) await d.spends.release(spend.id, (e as Error).message)
    if (e instanceof BaseError && e.code === 'BUNDLER_UNAVAILABLE') await d.aa?.bundlerDown()
    if (e instanceof BaseError) throw e
    throw new BaseError(
      'RELAY_FAILED',
      `the send could not be completed ` +
        `(${(e as Error).message.split('\n')[0]})${movedNothing ? '; nothing was spent' : ''}`,
      { cause: e },
    )
  }
}

/** What one call from an agent's wallet left on chain: its transaction (and user operation on AA networks) and logs. */
export type AgentCall = { transaction: Hex; userOperation: Hex | null; logs: Log[] }

/**
 * One contract call from the agent's own address, the way a send goes out: a sponsored user
 * operation of its EIP-7702 account on AA networks, else a transaction it signs (fees topped up on
 * the local profile). The key never leaves the service. `submitted` runs just before the call goes
 * out, with the user operation's identity on AA networks (a failure after it may have moved
 * something; SEND_PENDING when the bundler took it without answering); a revert is RELAY_FAILED
 * saying `nothingMoved`.
 */
export async function callFromAgent(
  d: Pick<SendDeps, 'chain' | 'walletKey' | 'aa' | 'topUpFees'>,
  agent: AgentRow,
  call: { to: Address; data: Hex },
  submitted: (op?: PreparedUserOp) => void | Promise<void>,
  nothingMoved: string,
): Promise<AgentCall> {
  if (sendMethodOf(networks[agent.network]!) === 'userOperation') {
    if (!d.aa)
      throw new BaseError(
        'BUNDLER_UNAVAILABLE',
        `no ERC-4337 bundler is configured for ${agent.network}; nothing was sent`,
      )
    const account = await d.aa.account(d.walletKey(agent))
    const op = await account.prepare([call])
    await submitted(account.identify(op))
    const receipt = await account.submit(op)
    if (!receipt.success)
      throw new BaseError('RELAY_FAILED', `the user operation ${receipt.userOpHash} reverted; ${nothingMoved}`)
    return {
      transaction: receipt.receipt.transactionHash,
      userOperation: receipt.userOpHash,
      logs: receipt.logs as Log[],
    }
  }
  const from = getAddress(agent.address)
  const wallet = createWalletClient({
    account: privateKeyToAccount(d.walletKey(agent)),
    chain: d.chain.client.chain!,
    transport: rpcHttp(d.chain.rpcUrl),
  })
  // One call at a time per wallet in this process, so two never take the same nonce.
  const { hash, receipt } = await inTurn(from, async () => {
    await d.topUpFees?.(from)
    const hash = await wallet.sendTransaction(call)
    await submitted()
    return { hash, receipt: await d.chain.client.waitForTransactionReceipt({ hash }) }
  })
  if (receipt.status !== 'success')
    throw new BaseError('RELAY_FAILED', `the transaction ${hash} reverted; ${nothingMoved}`)
  return { transaction: hash, userOperation: null, logs: receipt.logs }
}

const queues = new Map<string, Promise<unknown>>()
async function inTurn<T>(key: string, run: () => Promise<T>): Promise<T> {
  const prev = queues.get(key) ?? Promise.resolve()
  const next = prev.catch(() => {}).then(run)
  queues.set(key, next)
  try {
    return await next
  } finally {
    if (queues.get(key) === next) queues.delete(key)
  }
}

/** Local direct networks: the native coin stands in for the fee token; keep at least `floor` in the wallet. */
export function anvilFeeTopUp(chain: EvmChain, floor = parseEther('0.01'), target = parseEther('1')) {
  return async (address: Address) => {
    const have = await chain.client.getBalance({ address })
    if (have < floor)
      await chain.client.request({ method: 'anvil_setBalance' as never, params: [address, toHex(target)] as never })
  }
}
