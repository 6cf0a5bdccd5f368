import type { Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { BaseError } from '../../src/errors/index.js'
import type { SwapResult } from '../../src/sdk/platform/wallet.js'
import {
  orderDomain,
  permitMessage,
  permitTypes,
  type RfqOrder,
  rfqOrderTypes,
  splitSignature,
} from '../../src/sdk/swap/index.js'
import { fromBaseUnits, toBaseUnits } from '../../src/sdk/units.js'
import type { AgentRow } from '../platform/store.js'
import type { SwapDeps } from '../swap/deps.js'
import { relaySwap } from '../swap/relay-swap.js'
import { readNonces } from '../swap/user-state.js'
import { usdMicros } from './limits.js'
import { enforce, NO_SCOPED_RULES, type ScopedRules } from './policy/rules.js'
import type { SpendsLedger } from './spends.js'

/** `rules`: the agent's and its user's payee and network rules (network, both tokens); none when left out. */
export type AgentSwapDeps = {
  swap: SwapDeps
  spends: SpendsLedger
  walletKey(agent: AgentRow): Hex
  rules?: ScopedRules
}

/** How long the signed order stays valid, in chain seconds. */
const ORDER_TTL_S = 600

/**
 * POST /api/agents/:id/swap. The agent's wallet signs the RfqOrder and the input token's EIP-2612
 * permit exactly as a partner's client would (src/sdk/swap), and the order goes through our own
 * swap service in-process (relaySwap, the handler of POST /api/base/swap): the same checks,
 * simulation and solver relay, so the swap is gasless like any partner's, without an internal
 * partner key or an HTTP hop. The input amount counts toward the limits, reserved before signing.
 */
export async function swapForAgent(
  d: AgentSwapDeps,
  agent: AgentRow,
  body: { from: string; to: string; amount: string },
): Promise<SwapResult> {
  const chain = d.swap.base
  if (chain.key !== agent.network)
    throw new BaseError('NETWORK_UNSUPPORTED', `this deployment swaps on ${chain.key}, not ${agent.network}`)
  const input = chain.tokens[body.from]
  const output = chain.tokens[body.to]
  if (!input || !output)
    throw new BaseError(
      'UNKNOWN_TOKEN',
      `${!input ? body.from : body.to} has no address on ${chain.key} in this deployment`,
    )
  const router = chain.contracts.router
  if (!router) throw new BaseError('CHAIN_UNAVAILABLE', `no swap router is deployed on ${chain.key}`)
  enforce(
    d.rules ?? NO_SCOPED_RULES,
    {
      network: { key: chain.key, caip2: chain.spec.caip2 },
      tokens: [
        { symbol: input.symbol, address: input.address },
        { symbol: output.symbol, address: output.address },
      ],
    },
    body.amount,
  )
  const spend = await d.spends.reserve({
    agentId: agent.id,
    kind: 'swap',
    amountMicros: usdMicros(body.amount, input.decimals),
    token: input.symbol,
    amount: body.amount,
  })
  let relayed = false
  try {
    const signer = privateKeyToAccount(d.walletKey(agent))
    const nonces = await readNonces(chain, signer.address)
    const inputAmount = toBaseUnits(body.amount, input.decimals)
    // Par: the same dollar amount out, at the output token's decimals.
    const minOutputAmount =
      output.decimals >= input.decimals
        ? inputAmount * 10n ** BigInt(output.decimals - input.decimals)
        : inputAmount / 10n ** BigInt(input.decimals - output.decimals)
    const order: RfqOrder = {
      user: signer.address,
      inputToken: input.address,
      inputAmount,
      outputToken: output.address,
      minOutputAmount,
      solver: d.swap.solver,
      deadline: BigInt(nonces.chainTime + ORDER_TTL_S),
      nonce: BigInt(nonces.router),
    }
    if (!input.permitDomain)
      throw new BaseError('UNKNOWN_TOKEN', `${input.symbol} on ${chain.key} takes no EIP-2612 permit`)
    const [orderSig, permitSig] = await Promise.all([
      signer.signTypedData({
        domain: orderDomain({ chainId: chain.chainId, router }),
        types: rfqOrderTypes,
        primaryType: 'RfqOrder',
        message: order,
      }),
      signer.signTypedData({
        domain: { ...input.permitDomain, chainId: chain.chainId, verifyingContract: input.address },
        types: permitTypes,
        primaryType: 'Permit',
        message: permitMessage(order, router, BigInt(nonces.permit[input.symbol] ?? '0')),
      }),
    ])
    const accepted = await relaySwap(d.swap, {
      user: signer.address,
      uiAmount: body.amount,
      in: input.symbol,
      out: output.symbol,
      order,
      orderSig,
      ...splitSignature(permitSig),
    })
    relayed = true
    const receipt = await chain.client.waitForTransactionReceipt({ hash: accepted.hash })
    if (receipt.status !== 'success')
      throw new BaseError('RELAY_FAILED', `the swap ${accepted.hash} reverted; nothing was swapped`)
    await d.spends.confirm(spend.id, { tx: accepted.hash })
    return {
      id: spend.id,
      agentId: agent.id,
      network: agent.network,
      from: { token: input.symbol, amount: body.amount },
      to: { token: output.symbol, amount: fromBaseUnits(minOutputAmount, output.decimals) },
      transaction: accepted.hash,
      status: 'included',
      createdAt: new Date(Number(spend.created_at)).toISOString(),
    }
  } catch (e) {
    // relaySwap refuses before relaying (nothing sent), and a reverted swap moved nothing.
    if (!relayed || (e instanceof BaseError && e.code === 'RELAY_FAILED'))
      await d.spends.release(spend.id, (e as Error).message)
    if (e instanceof BaseError) throw e
    throw new BaseError('RELAY_FAILED', `the swap could not be completed (${(e as Error).message.split('\n')[0]})`, {
      cause: e,
    })
  }
}
