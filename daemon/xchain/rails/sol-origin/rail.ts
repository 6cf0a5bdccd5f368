import { createAssociatedTokenAccountIdempotentInstruction, TOKEN_PROGRAM_ID } from '@solana/spl-token'
import { PublicKey } from '@solana/web3.js'
import { type Address, encodeFunctionData, type Hex, hexToBytes } from 'viem'
import * as OutputSettler from '../../../../contracts/evm/artifacts/OutputSettler.js'
import { claimInstruction, ed25519Instruction, refundInstruction } from '../../../../contracts/solana/client.js'
import { chainRef, solDeliveryMessage, solParty } from '../../../../contracts/xchain/statement.js'
import { BaseError } from '../../../../src/errors/index.js'
import type { SolOriginBuildRequest, SolOriginBuilt } from '../../../../src/sdk/xchain/wire.js'
import { evmClient } from '../../../chains/evm/chain.js'
import { outboxStore } from '../../../chains/evm/outbox.js'
import { ataOf } from '../../../sol/accounts.js'
import { attestorSolanaReads } from '../../attestors/solana-reads.js'
import type { XOrder } from '../../order-store.js'
import type { AttestorCheck, FillRead, Rail } from '../../rail.js'
import { prepareSolOrigin } from './build.js'
import { partyAddress, readBaseFill, readLock, readLockState, readOrderAccount } from './chain-reads.js'
import type { SolOriginDeps } from './deps.js'
import { decodeSolOrder } from './order-data.js'
import { rebroadcastSolana, sendSolverTx, solanaFate } from './solana-tx.js'

const FILL_PURPOSE = 'xchain-fill'
const FILL_GAS = 250_000n

/**
 * sol-origin: the user locks on Solana (origin_settler), the solver fills on Base (OutputSettler),
 * the attestors sign the 248-byte ed25519 statement, the solver claims on Solana; after expires
 * the lock is refunded to the user.
 */
export function solOriginRail(d: SolOriginDeps): Rail<SolOriginBuildRequest, SolOriginBuilt> {
  const program = () => {
    const p = d.solana.programs.originSettler
    if (!p) throw new BaseError('FLOW_DISABLED', `origin_settler is not deployed on ${d.solana.key}`)
    return p
  }
  const settler = () => {
    const s = d.base.contracts.outputSettler
    if (!s) throw new BaseError('FLOW_DISABLED', `OutputSettler is not deployed on ${d.base.key}`)
    return s
  }
  const connection = d.solana.connection
  const reads = d.solana.reads
  const claimant = solParty(d.solver.publicKey.toBytes())
  const fillQuery = (o: XOrder) => ({
    orderId: o.orderId as Hex,
    token: o.outputToken as Address,
    amount: o.outputAmount,
    recipient: o.recipient as Address,
  })
  const knownAtas = new Set<string>()
  const outbox = outboxStore(d.store)

  /** Fills of this order the solver signed: in flight (no receipt yet) and the last included. */
  const outboxFills = async (orderId: string) => {
    const rows = await outbox.byRefs(d.base.key, FILL_PURPOSE, orderId)
    return { inFlight: rows.some((r) => r.state === 'sent'), included: rows.find((r) => r.state === 'included')?.hash }
  }

  return {
    name: 'sol-origin',
    prepare: (req) => prepareSolOrigin(d, req),
    outputInventory: (o) => ({ network: d.base.key, token: o.outSymbol }),
    readSource: (o) => readLock(reads, program(), o.orderId, o.openValidUntil),
    readSourceById: (orderId) => readLock(reads, program(), orderId, null),
    readLockState: (o) => readLockState(reads, program(), o.orderId),
    async readFill(o): Promise<FillRead> {
      const [fill, out] = await Promise.all([
        readBaseFill(d.base.client, settler(), fillQuery(o)),
        outboxFills(o.orderId),
      ])
      if (fill.filler === '0x0000000000000000000000000000000000000000') return { filled: false, inFlight: out.inFlight }
      return {
        filled: true,
        amount: o.outputAmount,
        claimant: fill.claimant,
        filledAt: fill.timestamp,
        ref: out.included,
      }
    },
    async deliver(o) {
      const q = fillQuery(o)
      const data = encodeFunctionData({
        abi: OutputSettler.abi,
        functionName: 'fill',
        args: [q.orderId, q.token, q.amount, q.recipient, claimant, BigInt(o.fillDeadline)],
      })
      const { hash, receipt } = await d.baseSender.sendAndWait({
        to: settler(),
        data,
        gas: FILL_GAS,
        purpose: FILL_PURPOSE,
        refs: o.orderId,
      })
      // A successful fill's row stays for the outbox replay (a chain that loses it gets it again); a
      // reverted one is decided now, so `readFill` stops reporting it in flight and the next pass may retry.
      if (receipt.status !== 'success') await outbox.mark(hash, 'included')
      if (receipt.status !== 'success')
        throw new BaseError('RELAY_FAILED', `the fill ${hash} of ${o.orderId} reverted on ${d.base.key}`)
      return { ref: hash }
    },
    statement(o, fill) {
      const { order } = decodeSolOrder(o.orderData)
      const message = solDeliveryMessage(
        {
          orderId: o.orderId,
          destChain: order.destChain,
          recipient: order.recipient,
          outputToken: order.outputToken,
          amount: order.outputAmount,
          solver: fill.claimant,
        },
        order.program,
      )
      return `0x${Buffer.from(message).toString('hex')}`
    },
    async claim(o, { statement, signatures }, persist) {
      const { order } = decodeSolOrder(o.orderData)
      const p = new PublicKey(order.program)
      const onChain = await readOrderAccount(reads, p, o.orderId)
      if (!onChain) throw new BaseError('CHAIN_UNAVAILABLE', `no origin_settler order ${o.orderId} on ${d.solana.key}`)
      const mint = onChain.mint
      // ataOf's memo: the derivation (a curve check per bump, ~2 ms in JavaScript) once per mint, not at every claim.
      const solverToken = ataOf(d.solver.publicKey, { mint, program: TOKEN_PROGRAM_ID })
      const ixs = []
      if (!knownAtas.has(solverToken.toBase58())) {
        if ((await reads.multipleAccounts([solverToken], 'confirmed'))[0]) knownAtas.add(solverToken.toBase58())
        else
          ixs.push(
            createAssociatedTokenAccountIdempotentInstruction(
              d.solver.publicKey,
              solverToken,
              d.solver.publicKey,
              mint,
              TOKEN_PROGRAM_ID,
            ),
          )
      }
      ixs.push(
        ed25519Instruction(
          hexToBytes(statement),
          signatures.map((s) => ({ publicKey: new PublicKey(s.signer).toBytes(), signature: hexToBytes(s.signature) })),
        ),
        claimInstruction({
          program: p,
          orderId: o.orderId,
          mint,
          solver: d.solver.publicKey,
          solverToken,
          rentPayer: onChain.rentPayer,
        }),
      )
      return sendSolverTx(d.solana, d.solver, ixs, persist)
    },
    async refund(o, persist) {
      const { order } = decodeSolOrder(o.orderData)
      const p = new PublicKey(order.program)
      const onChain = await readOrderAccount(reads, p, o.orderId)
      if (!onChain) throw new BaseError('CHAIN_UNAVAILABLE', `no origin_settler order ${o.orderId} on ${d.solana.key}`)
      const ix = refundInstruction({
        program: p,
        orderId: o.orderId,
        mint: onChain.mint,
        userToken: onChain.userToken,
        rentPayer: onChain.rentPayer,
      })
      return sendSolverTx(d.solana, d.solver, [ix], persist)
    },
    rebroadcast: (raw) => rebroadcastSolana(connection, raw),
    fate: (ref, validUntil) => solanaFate(reads, ref, validUntil),
    attestorCheck: (index) => solOriginAttestorCheck(d, index),
  }
}

/**
 * What attestor `index` checks before signing a sol-origin delivery, with chain clients of its own
 * (not the solver's): the order as origin_settler holds it on Solana (open, bound for this Base
 * chain), then OutputSettler's record of exactly that output on Base (a filler, at or before the
 * order's fillDeadline). It signs the statement built from those reads, crediting the recorded claimant.
 */
export function solOriginAttestorCheck(d: Pick<SolOriginDeps, 'solana' | 'base'>, index: number): AttestorCheck {
  const reads = attestorSolanaReads(d.solana)
  const client = evmClient(d.base.spec, d.base.rpcUrl)
  const destChain = chainRef(d.base.spec.caip2)
  return {
    async verify(orderId) {
      const program = d.solana.programs.originSettler
      const settler = d.base.contracts.outputSettler
      if (!program || !settler) return { ok: false, reason: 'the sol-origin contracts are not deployed' }
      const order = await readOrderAccount(reads, program, orderId)
      if (!order) return { ok: false, reason: `attestor ${index} finds no order ${orderId} on ${d.solana.key}` }
      if (order.status !== 1) return { ok: false, reason: `order ${orderId} is no longer open on ${d.solana.key}` }
      if (order.destChain.toLowerCase() !== destChain)
        return { ok: false, reason: `order ${orderId} is bound for another chain than ${d.base.key}` }
      const token = partyAddress(order.outputToken)
      const recipient = partyAddress(order.recipient)
      if (!token || !recipient)
        return { ok: false, reason: `order ${orderId} names an output or recipient that is not an EVM address` }
      const fill = await readBaseFill(client, settler, { orderId, token, amount: order.outputAmount, recipient })
      if (fill.filler === '0x0000000000000000000000000000000000000000')
        return { ok: false, reason: `no fill of ${orderId} with its output on ${d.base.key}` }
      if (BigInt(fill.timestamp) > order.fillDeadline)
        return { ok: false, reason: `the fill of ${orderId} landed after its fillDeadline` }
      const message = solDeliveryMessage(
        {
          orderId,
          destChain: order.destChain,
          recipient: order.recipient,
          outputToken: order.outputToken,
          amount: order.outputAmount,
          solver: fill.claimant,
        },
        program.toBytes(),
      )
      return { ok: true, statement: `0x${Buffer.from(message).toString('hex')}`, scheme: 'ed25519' }
    },
  }
}
