import { type Address, getAddress, type Hex } from 'viem'
import * as RfqSwap from '../../contracts/evm/artifacts/RfqSwap.js'
import { BaseError } from '../../src/errors/index.js'
import { encodeCall } from '../../src/sdk/encode-call.js'
import type { RfqOrder } from '../../src/sdk/swap/order.js'
import type { SwapAccepted } from '../../src/sdk/swap/types.js'
import { withOutcome } from '../metrics/outcome.js'
import type { Store } from '../store/store.js'
import { checkBalance, checkDeadlineAndNonce, checkFloor, checkInventory } from './chain-checks.js'
import type { SwapDeps } from './deps.js'
import { type InflightOrders, inflightOrders } from './inflight.js'
import { storeInflightOrders } from './inflight-store.js'
import { checkParSize } from './limits.js'
import { checkOrderFields, orderDigest } from './order-checks.js'
import { pairKey, resolvePair } from './pairs.js'
import { checkRedeemable, deliveryFor, priceRedeem } from './redeem-quote.js'
import { orderSignatureError, permitSignatureError } from './signature-errors.js'
import { type SimulationFailure, simulate } from './simulate.js'
import { readSwapState } from './user-state.js'

/** A validated request body (docs/swap-api.md "Routes"), amounts in base units. */
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

/** Gas limits with room above what the router uses (~115k from inventory; a first permit writes cold storage). */
const GAS = { inventory: 300_000n, pool: 400_000n }

/**
 * POST /api/base/swap and /api/base/redeem: the checks of docs/swap-api.md "Routes" in order, each with its own code
 * and nothing sent when one fails; then an eth_call simulation, in which the router judges both
 * signatures; only then the relay through the solver's shared sender. Resolves once the node has
 * accepted the transaction.
 */
export async function relaySwap(s: SwapDeps, req: SwapRequest): Promise<SwapAccepted> {
  if (!s.metrics) return relayChecked(s, req)
  const metrics = s.metrics
  return withOutcome(
    (o) => metrics.relay(o === 'ok' ? 'accepted' : o),
    () => relayChecked(s, req),
  )
}

async function relayChecked(s: SwapDeps, req: SwapRequest): Promise<SwapAccepted> {
  const chain = s.base
  const router = chain.contracts.router!
  const solver = s.solver
  const pair = resolvePair(chain, req.in, req.out)
  if (!s.flowEnabled(pair.flow)) {
    throw new BaseError(
      'FLOW_DISABLED',
      `the ${pair.flow} flow (${pair.input.symbol} to ${pair.output.symbol}) ` +
        `is disabled on this service (see GET /api/capabilities)`,
    )
  }
  const { order } = req
  const args = [order, req.orderSig, req.v, req.r, req.s] as const
  const calldata = {
    inventory: () => encodeCall({ abi: RfqSwap.abi, functionName: 'swap', args }),
    pool: () =>
      encodeCall({
        abi: RfqSwap.abi,
        functionName: 'swapViaPool',
        args: [...args, chain.contracts[pairKey(pair.input.symbol)]!],
      }),
  }

  // 2. the order against the request (local: no round trip)
  checkOrderFields({ pair, user: req.user, uiAmount: req.uiAmount, order, solver })

  // A par fill always comes from inventory, so its simulation can run while the state is read; its
  // verdict is only looked at once every check has passed.
  const early =
    pair.kind === 'redeem' ? undefined : simulate(chain, solver, router, calldata.inventory(), GAS.inventory)
  const state = await readSwapState(chain, {
    user: order.user,
    input: pair.input,
    output: pair.output,
    solver,
    pair: pair.kind === 'redeem' ? chain.contracts[pairKey(pair.input.symbol)] : undefined,
  })
  // 3. deadline and nonce
  checkDeadlineAndNonce(order, state)
  // 4. inventory and allowance; a redemption the inventory cannot pay goes through the pool
  const plan = state.reserves
    ? priceRedeem(s, {
        input: pair.input,
        usdc: pair.output,
        amountIn: order.inputAmount,
        reserves: state.reserves,
        inventory: state.inventory,
      })
    : undefined
  const deliverFrom = plan ? deliveryFor(s, plan, order.minOutputAmount) : 'inventory'
  if (deliverFrom === 'inventory') checkInventory(pair.output, order.minOutputAmount, state.inventory)
  // 5. the user's balance
  checkBalance(pair.input, order.user, order.inputAmount, state)
  // 6. the route's size limit (and a redemption's price)
  if (plan) {
    checkRedeemable(s, plan, 'uiAmount')
    checkFloor(pair, order.minOutputAmount, plan.priced.out)
  } else {
    checkParSize(order.inputAmount, pair.input.decimals, pair.input.symbol, s.limits.maxUsd)
  }

  const claim = await s.inflight.claim(order.user, order.nonce)
  try {
    const data = calldata[deliverFrom]()
    const failed = await (early ?? simulate(chain, solver, router, data, GAS[deliverFrom]))
    if (failed) throw await explain(s, req, failed, state.permitNonce, pair.input)
    const hash = await s.sender.send({
      to: router,
      data,
      gas: GAS[deliverFrom],
      purpose: 'swap',
      refs: `${getAddress(order.user)}:${order.nonce}`,
    })
    // Sent: nothing may fail the answer now. A hash that could not be recorded leaves the claim
    // held without one, which still refuses a resubmission until it is orphaned.
    await Promise.resolve(claim.relayed(hash)).catch(() => {})
    s.reads.invalidate()
    return {
      hash,
      status: 'submitted',
      kind: pair.kind,
      orderHash: orderDigest(order, { chainId: chain.chainId, router }),
      user: getAddress(order.user),
      nonce: order.nonce.toString(),
      in: pair.input.symbol,
      out: pair.output.symbol,
      inputAmount: order.inputAmount.toString(),
      minOutputAmount: order.minOutputAmount.toString(),
      deliverFrom,
      confirm: `/api/base/confirm?hash=${hash}`,
    }
  } catch (e) {
    await Promise.resolve(claim.release()).catch(() => {})
    throw e
  }
}

/** A refused signature is recovered locally to say what was signed wrong; other reverts speak for themselves. */
async function explain(
  s: SwapDeps,
  req: SwapRequest,
  failed: SimulationFailure,
  permitNonce: bigint,
  input: Parameters<typeof permitSignatureError>[1],
): Promise<BaseError> {
  const chain = s.base
  if (failed.errorName === 'BadSignature') {
    return orderSignatureError(
      chain,
      req.order,
      orderDigest(req.order, { chainId: chain.chainId, router: chain.contracts.router! }),
      req.orderSig,
    )
  }
  if (failed.errorName === 'InsufficientAllowance')
    return permitSignatureError(chain, input, req.order, req, permitNonce)
  return failed.error
}

/**
 * The daemon's record of orders in flight; built once by the composition root. With a shared
 * store (replicas on PostgreSQL) the claims are its rows, so one order relays once across replicas.
 */
export function swapInflight(s: Pick<SwapDeps, 'base'>, shared?: Store): InflightOrders {
  const isLive = (hash: Hex) => mayStillLand(s, hash)
  return shared ? storeInflightOrders({ store: shared, chainId: s.base.chainId, isLive }) : inflightOrders(isLive)
}

/** A relayed transaction holds its order's nonce until it is mined successfully, reverts, or vanishes. */
async function mayStillLand(s: Pick<SwapDeps, 'base'>, hash: Hex): Promise<boolean> {
  const client = s.base.client
  const receipt = await client.getTransactionReceipt({ hash }).catch(() => undefined)
  if (receipt) return receipt.status === 'success'
  return (await client.getTransaction({ hash }).catch(() => undefined)) !== undefined
}
