import {
  decodeErrorResult,
  encodeFunctionData,
  type Hex,
  HttpRequestError,
  parseSignature,
  RawContractError,
  TimeoutError,
  BaseError as ViemError,
} from 'viem'
import * as PermitToken from '../../../../contracts/evm/artifacts/PermitToken.js'
import * as SourceEscrow from '../../../../contracts/evm/artifacts/SourceEscrow.js'
import { BaseError, type ErrorCode } from '../../../../src/errors/index.js'
import type { EvmOriginSubmitRequest, EvmOriginSubmitted } from '../../../../src/sdk/xchain/wire.js'
import type { XOrder } from '../../order-store.js'
import { escrowTxs, PURPOSE } from './base-tx.js'
import { clockThenStatus, ESCROW_STATUS, type LockRead } from './chain-reads.js'
import type { EvmOriginDeps } from './deps.js'
import { decodeEvmOrder } from './order-data.js'

/** A relay's claim on the order row, until its transaction hash replaces it. */
const RELAYING = 'relaying:'
/** A claim older than this with no transaction in the outbox was left by a crash: another submit may take over. */
const STALE_RELAY_MS = 60_000

const revertAbi = [...SourceEscrow.abi, ...PermitToken.abi].filter((e) => e.type === 'error')

/** Escrow reverts a user can act on, with the code of the check that should have caught them. */
const codeOf: Record<string, { code: ErrorCode; todo: string }> = {
  BadSignature: {
    code: 'INVALID_SIGNATURE',
    todo: "orderSignature does not verify for order.user: sign gasless.order again with the user's wallet",
  },
  InsufficientAllowance: {
    code: 'INVALID_SIGNATURE',
    todo:
      'the permit did not verify and no allowance covers inputAmount: sign gasless.permit ' +
      "with the user's wallet (its nonce may have moved since the build: build again)",
  },
  FillDeadlinePassed: { code: 'DEADLINE_EXPIRED', todo: 'the order can no longer open: build a new one' },
  ERC20InsufficientBalance: {
    code: 'INSUFFICIENT_BALANCE',
    todo: 'the user holds less than inputAmount: fund the wallet and build again',
  },
}

/**
 * POST /api/xchain/evm-origin/open/submit: the gasless open. The user signed the order and the
 * permit; the solver relays `openFor` and pays the gas. At most one relay per order: the row's
 * open_ref is taken by compare-and-set before anything is signed, and the signed transaction is in
 * the outbox before the node sees it. A second submit answers the state of the first.
 */
export function evmOriginSubmit(
  d: EvmOriginDeps,
  lock: (escrow: Hex, orderId: Hex) => Promise<LockRead> = clockThenStatus(
    d.base.client,
    d.base.spec.rpc === 'embedded',
  ),
) {
  const txs = escrowTxs(d)
  const status = async (escrow: Hex, orderId: string) => (await lock(escrow, orderId as Hex)).status

  const answer = async (o: XOrder): Promise<EvmOriginSubmitted> => {
    const opened = await status(d.base.contracts.escrow!, o.orderId)
    const row = await d.orders.get(o.orderId)
    let ref = row?.openRef && !row.openRef.startsWith(RELAYING) ? (row.openRef as Hex) : null
    if (!ref && row?.openRef) {
      // A relay that crashed after signing: its transaction is in the outbox; the row learns it now.
      const signed = await txs.earlier(PURPOSE.open, o.orderId)
      if (signed) {
        ref = signed.hash
        await d.orders.swapOpenRef(o.orderId, row.openRef, signed.hash)
      }
    }
    return {
      rail: 'evm-origin',
      orderId: o.orderId,
      opened: opened !== ESCROW_STATUS.none,
      openRef: ref,
      status: `/api/xchain/status/${o.orderId}?rail=evm-origin`,
    }
  }

  /** Takes the row's relay claim; false when another relay holds it. */
  const take = async (o: XOrder, claim: string): Promise<boolean> => {
    if (await d.orders.swapOpenRef(o.orderId, null, claim)) return true
    const held = (await d.orders.get(o.orderId))?.openRef
    if (!held?.startsWith(RELAYING) || Date.now() - Number(held.slice(RELAYING.length)) < STALE_RELAY_MS) return false
    // A relay that crashed: its transaction, if it was signed, is in the outbox.
    const signed = await txs.earlier(PURPOSE.open, o.orderId)
    if (signed) {
      await d.orders.swapOpenRef(o.orderId, held, signed.hash)
      return false
    }
    return d.orders.swapOpenRef(o.orderId, held, claim)
  }

  return async function submit(o: XOrder, body: EvmOriginSubmitRequest): Promise<EvmOriginSubmitted> {
    const escrow = d.base.contracts.escrow
    if (!escrow) throw new BaseError('FLOW_DISABLED', `SourceEscrow is not deployed on ${d.base.key}`)
    if (o.stage === 'dropped')
      throw new BaseError(
        'DEADLINE_EXPIRED',
        `order ${o.orderId} was not opened before its fillDeadline ${o.fillDeadline}: build a new one`,
      )
    // Relayed already (a hash), or past built: the state is the answer. A relay claim is for `take`.
    if (o.stage !== 'built' || (o.openRef && !o.openRef.startsWith(RELAYING))) return answer(o)
    const order = decodeEvmOrder(o.orderData)
    const now = await lock(escrow, o.orderId as Hex)
    if (now.status !== ESCROW_STATUS.none) return answer(o)
    if (now.now >= order.fillDeadline) {
      throw new BaseError(
        'DEADLINE_EXPIRED',
        `order ${o.orderId} had to be opened before its fillDeadline ${order.fillDeadline}: build a new one`,
      )
    }
    const permit = body.permitSignature ? splitPermit(body.permitSignature) : undefined
    const v = permit?.v ?? 0
    const zero = `0x${'00'.repeat(32)}` as Hex
    const data = encodeFunctionData({
      abi: SourceEscrow.abi,
      functionName: 'openFor',
      args: [order, body.orderSignature, BigInt(order.fillDeadline), v, permit?.r ?? zero, permit?.s ?? zero],
    })
    // Nothing is signed for a relay that would revert: the user hears why instead.
    const refused = await simulate(d, escrow, data)
    if (refused === 'OrderAlreadyOpened') return answer(o)
    if (refused) throw refused

    const claim = `${RELAYING}${Date.now()}`
    if (!(await take(o, claim))) return answer(o)
    let ref: string | undefined
    try {
      await txs.send(PURPOSE.open, o.orderId, data, async (s) => {
        ref = s.ref
        await d.orders.swapOpenRef(o.orderId, claim, s.ref)
      })
    } catch (e) {
      // Not opened by this relay: the claim goes, so a corrected submit may relay again.
      if (!(await d.orders.swapOpenRef(o.orderId, claim, null)) && ref) await d.orders.swapOpenRef(o.orderId, ref, null)
      if ((await status(escrow, o.orderId)) !== ESCROW_STATUS.none) return answer(o)
      throw e
    }
    return answer(o)
  }
}

/**
 * eth_call of the relay as the solver sends it: undefined when it would succeed, the revert's name or error otherwise.
 */
async function simulate(
  d: EvmOriginDeps,
  escrow: Hex,
  data: Hex,
): Promise<BaseError | 'OrderAlreadyOpened' | undefined> {
  try {
    await d.base.client.call({ account: d.baseSender.address, to: escrow, data, gas: 300_000n })
    return undefined
  } catch (e) {
    if (
      e instanceof ViemError &&
      e.walk((x) => x instanceof HttpRequestError || x instanceof TimeoutError) &&
      !e.walk((x) => x instanceof RawContractError)
    ) {
      return new BaseError(
        'CHAIN_UNAVAILABLE',
        `${d.base.key} did not answer the simulation (${e.shortMessage}); nothing was sent: retry shortly`,
      )
    }
    const root = e instanceof ViemError ? (e.walk() as { data?: Hex | { data?: Hex } }) : undefined
    const revert = typeof root?.data === 'object' ? root.data?.data : root?.data
    if (revert && revert.length >= 10) {
      try {
        const { errorName, args } = decodeErrorResult({ abi: revertAbi, data: revert })
        if (errorName === 'OrderAlreadyOpened') return errorName
        const reason = `${errorName}(${(args ?? []).map(String).join(', ')})`
        const known = codeOf[errorName]
        return known
          ? new BaseError(known.code, `openFor reverts in simulation with ${reason}: ${known.todo}`)
          : new BaseError('SIMULATION_FAILED', `openFor reverts in simulation with ${reason}; nothing was sent`)
      } catch {
        // not one of ours: the node's words below
      }
    }
    return new BaseError(
      'SIMULATION_FAILED',
      `openFor reverts in simulation: ${e instanceof ViemError ? e.shortMessage : String(e)}; nothing was sent`,
    )
  }
}

/** The permit's v, r, s as EIP-2612 `permit` takes them (v 27 or 28). */
function splitPermit(signature: Hex): { v: number; r: Hex; s: Hex } {
  try {
    const { r, s, v, yParity } = parseSignature(signature)
    return { r, s, v: Number(v ?? BigInt(yParity + 27)) }
  } catch {
    throw new BaseError(
      'INVALID_SIGNATURE',
      'permitSignature is not an ECDSA signature (its last byte, v, must be 27, 28, 0 or 1): sign gasless.permit again',
    )
  }
}
