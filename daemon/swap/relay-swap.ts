import { encodeFunctionData, type Address, type Hex } from 'viem'
import * as RfqSwap from '../../contracts/evm/artifacts/RfqSwap.js'
import { BaseError } from '../../src/errors/index.js'
import type { RfqOrder } from '../../src/sdk/swap/order.js'
import type { SwapAccepted } from '../../src/sdk/swap/types.js'
import type { Services } from '../services.js'
import { checkBalance, checkDeadlineAndNonce, checkFloor, checkInventory, checkPermit } from './chain-checks.js'
import { inflightOrders, type InflightOrders } from './inflight.js'
import { readInventory } from './inventory.js'
import { checkParSize } from './limits.js'
import { checkOrderFields, orderDigest, wrongSigner } from './order-checks.js'
import { resolvePair } from './pairs.js'
import { checkRedeemable, deliveryFor, planRedeem } from './redeem-quote.js'
import { simulate } from './simulate.js'
import { readUserState } from './user-state.js'

/** A validated request body (SPEC §2.3), amounts in base units. */
export type SwapRequest = {
  user: Address
  uiAmount: string
  in: string
  out: string
  order: RfqOrder
  orderSig: Hex
  v: number
  r: Hex
  s: Hex
}

/** Gas limits with room above what the router uses (a first permit writes cold storage). */
const GAS = { inventory: 300_000n, pool: 400_000n }

const inflight = new WeakMap<Services, InflightOrders>()

/**
 * POST /api/base/swap and /api/base/redeem: the checks of SPEC §4.1 in order, each with its own code
 * and nothing sent when one fails; then an eth_call simulation; only then the relay through the
 * solver's shared sender. Resolves once the node accepted the transaction.
 */
export async function relaySwap(s: Services, req: SwapRequest): Promise<SwapAccepted> {
  const chain = s.base
  const router = chain.contracts.router!
  const solver = s.accounts.solver
  const pair = resolvePair(chain, req.in, req.out)
  if (!s.flowEnabled(pair.flow)) {
    throw new BaseError('FLOW_DISABLED', `the ${pair.flow} flow (${pair.input.symbol} to ${pair.output.symbol}) is disabled on this service (see GET /api/capabilities)`)
  }
  const { order } = req

  // 2. the order against the request, then its signature (local: no gas, no round trip)
  checkOrderFields({ pair, user: req.user, uiAmount: req.uiAmount, order, solver })
  const orderHash = orderDigest(order, { chainId: chain.chainId, router })
  const recovered = await wrongSigner(orderHash, req.orderSig, order.user)
  // A contract wallet signs by ERC-1271, which only the chain can judge: the simulation does.
  if (recovered !== undefined && !(await isContract(s, order.user))) {
    throw new BaseError('INVALID_SIGNATURE', `orderSig does not recover to order.user ${order.user}${recovered ? ` (it recovers to ${recovered})` : ' (not a valid signature)'} under the domain { name: 'ParxRfqSwap', version: '1', chainId: ${chain.chainId}, verifyingContract: ${router} }: sign the order with the user's key in that domain`)
  }

  const [state, inventory, plan] = await Promise.all([
    readUserState(chain, order.user, pair.input),
    s.reads.get(`inventory:${chain.key}`, () => readInventory(chain, solver)),
    pair.kind === 'redeem' ? planRedeem(s, pair.input, pair.output, order.inputAmount) : undefined,
  ])
  // 3. deadline, nonce (and the permit the order implies)
  checkDeadlineAndNonce(order, state)
  await checkPermit(chain, pair.input, order, req, state)
  // 4. inventory and allowance; a redemption the inventory cannot pay goes through the pool
  const deliverFrom = plan ? deliveryFor(s, plan, order.minOutputAmount) : 'inventory'
  if (deliverFrom === 'inventory') checkInventory(pair.output, order.minOutputAmount, inventory)
  // 5. the user's balance
  checkBalance(pair.input, order.user, order.inputAmount, state)
  // 6. the route's size limit (and a redemption's price)
  if (plan) {
    checkRedeemable(s, plan, 'uiAmount')
    checkFloor(pair, order.minOutputAmount, plan.priced.out)
  } else {
    checkParSize(order.inputAmount, pair.input.decimals, pair.input.symbol, s.config.limits.maxUsd)
  }

  const claim = await inflightFor(s).claim(order.user, order.nonce)
  try {
    const args = [order, req.orderSig, req.v, req.r, req.s] as const
    const data = deliverFrom === 'pool'
      ? encodeFunctionData({ abi: RfqSwap.abi, functionName: 'swapViaPool', args: [...args, plan!.pair] })
      : encodeFunctionData({ abi: RfqSwap.abi, functionName: 'swap', args })
    await simulate(chain, solver, router, data, GAS[deliverFrom])
    const hash = await s.sender(chain.key, 'solver').send({ to: router, data, gas: GAS[deliverFrom] })
    claim.relayed(hash)
    s.reads.invalidate()
    return {
      hash, status: 'submitted', kind: pair.kind, orderHash, user: order.user, nonce: order.nonce.toString(),
      in: pair.input.symbol, out: pair.output.symbol, inputAmount: order.inputAmount.toString(),
      minOutputAmount: order.minOutputAmount.toString(), deliverFrom, confirm: `/api/base/confirm?hash=${hash}`,
    }
  } catch (e) {
    claim.release()
    throw e
  }
}

function inflightFor(s: Services): InflightOrders {
  let x = inflight.get(s)
  if (!x) inflight.set(s, (x = inflightOrders((hash) => mayStillLand(s, hash))))
  return x
}

/** A relayed transaction holds its order's nonce until it is mined successfully, reverts, or vanishes. */
async function mayStillLand(s: Services, hash: Hex): Promise<boolean> {
  const client = s.base.client
  const receipt = await client.getTransactionReceipt({ hash }).catch(() => undefined)
  if (receipt) return receipt.status === 'success'
  return (await client.getTransaction({ hash }).catch(() => undefined)) !== undefined
}

async function isContract(s: Services, address: Address): Promise<boolean> {
  const code = await s.base.client.getCode({ address })
  return code !== undefined && code !== '0x'
}
