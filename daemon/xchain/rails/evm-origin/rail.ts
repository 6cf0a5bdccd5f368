import { type Address, encodeFunctionData, type Hex } from 'viem'
import * as SourceEscrow from '../../../../contracts/evm/artifacts/SourceEscrow.js'
import { chainRef, evmOrderDelivery, solParty } from '../../../../contracts/xchain/statement.js'
import { BaseError } from '../../../../src/errors/index.js'
import type { EvmOriginBuildRequest, EvmOriginBuilt, EvmOriginSubmitRequest } from '../../../../src/sdk/xchain/wire.js'
import { evmClient } from '../../../chains/evm/chain.js'
import { attestorSolanaReads } from '../../attestors/solana-reads.js'
import type { AttestorCheck, Rail } from '../../rail.js'
import { escrowTxs, PURPOSE } from './base-tx.js'
import { prepareEvmOrigin } from './build.js'
import {
  baseNow,
  batchedLockReads,
  clockThenStatus,
  ESCROW_STATUS,
  escrowStatus,
  lockState,
  openedIndex,
  readFillRecord,
  readLock,
  sharedRead,
} from './chain-reads.js'
import { deliveryDigest } from './delivery-digest.js'
import type { EvmOriginDeps } from './deps.js'
import { decodeEvmOrder } from './order-data.js'
import { solanaFills } from './solana-fill.js'
import { evmOriginSubmit } from './submit.js'

/**
 * evm-origin: the user locks on Base (SourceEscrow, gaslessly through openFor or with open), the
 * solver fills on Solana (dest_settler), the attestors sign the EIP-712 Delivery, the solver claims
 * on Base; after expires the lock is refunded to the user.
 */
export function evmOriginRail(d: EvmOriginDeps): Rail<EvmOriginBuildRequest, EvmOriginBuilt> {
  const escrow = () => {
    const e = d.base.contracts.escrow
    if (!e) throw new BaseError('FLOW_DISABLED', `SourceEscrow is not deployed on ${d.base.key}`)
    return e
  }
  const verifier = () => {
    const v = d.base.contracts.verifier
    if (!v) throw new BaseError('FLOW_DISABLED', `AttestationVerifierMofN is not deployed on ${d.base.key}`)
    return v
  }
  const embedded = d.base.spec.rpc === 'embedded'
  const fills = solanaFills(d)
  const txs = escrowTxs(d)
  // The waiting orders' statuses and Base's clock in one eth_call per turn where Multicall3 is
  // deployed; else the clock (one block read shared by the orders asking at once), then each status.
  const multicall3 = d.base.contracts.multicall3
  const lock = multicall3
    ? batchedLockReads(d.base.client, multicall3, embedded)
    : clockThenStatus(
        d.base.client,
        embedded,
        sharedRead(() => baseNow(d.base.client, embedded)),
      )
  const submit = evmOriginSubmit(d, lock)

  return {
    name: 'evm-origin',
    prepare: (req) => prepareEvmOrigin(d, req),
    outputInventory: (o) => ({ network: d.solana.key, token: o.outSymbol }),
    readSource: (o) => readLock(d.base.client, escrow(), o.orderId, embedded, o.fillDeadline, lock),
    readSourceById: (orderId) => readLock(d.base.client, escrow(), orderId, embedded, null, lock),
    // With the worker's reads and the other waiting clients' polls of the same moment, where batched.
    readLockState: async (o) =>
      lockState(
        multicall3 ? (await lock(escrow(), o.orderId)).status : await escrowStatus(d.base.client, escrow(), o.orderId),
      ),
    readFill: (o) => fills.read(o),
    deliver: (o) => fills.deliver(o),
    statement(o, fill) {
      const order = decodeEvmOrder(o.orderData)
      return deliveryDigest(evmOrderDelivery(order, o.orderId, fill.claimant), d.base.chainId, verifier())
    },
    async claim(o, { signatures }, persist) {
      const order = decodeEvmOrder(o.orderData)
      const data = encodeFunctionData({
        abi: SourceEscrow.abi,
        functionName: 'claim',
        args: [order, fills.claimant, signatures.map((s) => s.signature)],
      })
      return txs.send(PURPOSE.claim, o.orderId, data, persist)
    },
    async refund(o, persist) {
      const order = decodeEvmOrder(o.orderData)
      const data = encodeFunctionData({ abi: SourceEscrow.abi, functionName: 'refund', args: [order] })
      return txs.send(PURPOSE.refund, o.orderId, data, persist)
    },
    fate: (ref) => txs.fate(ref),
    attestorCheck: (index) => evmOriginAttestorCheck(d, index),
    submit: (o, body) => submit(o, body as EvmOriginSubmitRequest),
  }
}

/**
 * What attestor `index` checks before signing an evm-origin delivery, with chain clients of its own
 * (not the solver's): the order as the escrow's Opened event carries it on Base (still deposited,
 * bound for this Solana cluster), then dest_settler's fill record of it on Solana (exactly the
 * order's mint, amount and recipient, at or before its fillDeadline). It signs the EIP-712 Delivery
 * built from those reads, crediting the claimant the record names.
 */
export function evmOriginAttestorCheck(
  d: Pick<EvmOriginDeps, 'base' | 'solana'> & { timing: Pick<EvmOriginDeps['timing'], 'expirySeconds'> },
  index: number,
): AttestorCheck {
  const reads = attestorSolanaReads(d.solana)
  const client = evmClient(d.base.spec, d.base.rpcUrl)
  const destChain = chainRef(d.solana.spec.caip2)
  // An unclaimed order was opened within its expiry; on a real chain (blocks of 1 s or more) that is
  // at most this many blocks back. An embedded chain mines per transaction: searched whole, at once.
  const embedded = d.base.spec.rpc === 'embedded'
  const lookback = embedded ? undefined : BigInt(d.timing.expirySeconds + 1_000)
  let events: { escrow: Address; find: ReturnType<typeof openedIndex> } | undefined
  const opened = (escrow: Address, orderId: Hex) => {
    if (events?.escrow !== escrow)
      events = {
        escrow,
        find: openedIndex(client, escrow, { lookbackBlocks: lookback, chunk: embedded ? 1n << 62n : 2_000n }),
      }
    return events.find(orderId)
  }
  return {
    async verify(orderId) {
      const escrow = d.base.contracts.escrow as Address | undefined
      const verifier = d.base.contracts.verifier as Address | undefined
      const program = d.solana.programs.destSettler
      if (!escrow || !verifier || !program) return { ok: false, reason: 'the evm-origin contracts are not deployed' }
      // Independent reads, at once: each one's round trip no longer waits for the one before (the claim does).
      const [status, order, fill] = await Promise.all([
        escrowStatus(client, escrow, orderId),
        opened(escrow, orderId),
        readFillRecord(reads, program, orderId),
      ])
      if (status !== ESCROW_STATUS.deposited)
        return { ok: false, reason: `order ${orderId} is not deposited in the escrow on ${d.base.key}` }
      if (!order) return { ok: false, reason: `attestor ${index} finds no Opened event of ${orderId} on ${d.base.key}` }
      if (order.destChain.toLowerCase() !== destChain)
        return { ok: false, reason: `order ${orderId} is bound for another chain than ${d.solana.key}` }
      if (!fill) return { ok: false, reason: `no fill of ${orderId} on ${d.solana.key}` }
      if (
        solParty(fill.mint.toBytes()) !== order.outputToken.toLowerCase() ||
        solParty(fill.recipient.toBytes()) !== order.recipient.toLowerCase() ||
        fill.amount !== order.outputAmount
      ) {
        return {
          ok: false,
          reason:
            `the fill of ${orderId} on ${d.solana.key} is not ` +
            `the order's output (mint, recipient or amount differ)`,
        }
      }
      if (fill.filledAt > BigInt(order.fillDeadline))
        return { ok: false, reason: `the fill of ${orderId} landed after its fillDeadline` }
      const statement = deliveryDigest(evmOrderDelivery(order, orderId as Hex, fill.claimant), d.base.chainId, verifier)
      return { ok: true, statement, scheme: 'secp256k1-digest' }
    },
  }
}
