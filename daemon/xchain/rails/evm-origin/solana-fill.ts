import { createAssociatedTokenAccountIdempotentInstruction } from '@solana/spl-token'
import { PublicKey } from '@solana/web3.js'
import { fillInstruction } from '../../../../contracts/solana/client.js'
import { evmParty } from '../../../../contracts/xchain/statement.js'
import { BaseError } from '../../../../src/errors/index.js'
import { ataOf, chainTokens } from '../../../sol/accounts.js'
import type { XOrder } from '../../order-store.js'
import type { FillRead } from '../../rail.js'
import { solanaNow } from '../sol-origin/chain-reads.js'
import { sendSolverTx } from '../sol-origin/solana-tx.js'
import { readFillRecord } from './chain-reads.js'
import type { EvmOriginDeps } from './deps.js'

/**
 * The Solana half of evm-origin: the solver's fill through dest_settler, and its record.
 *
 * The fill's signature is written to the order row (deliver_ref, stage opened) before it is sent,
 * so after a crash a fill that may still land is seen in flight and not sent again. A fill
 * known never to land (refused, failed, its blockhash expired) is cleared at once; one unknown
 * after a crash counts as in flight until the order's fillDeadline passes on Solana, after which
 * dest_settler refuses it anyway.
 */
export function solanaFills(d: Pick<EvmOriginDeps, 'solana' | 'solver' | 'orders' | 'baseSender'>) {
  const program = () => {
    const p = d.solana.programs.destSettler
    if (!p) throw new BaseError('FLOW_DISABLED', `dest_settler is not deployed on ${d.solana.key}`)
    return p
  }
  // The claimant the attestors credit: the Base solver, who sends the claim and is paid.
  const claimant = evmParty(d.baseSender.address)

  async function read(o: XOrder): Promise<FillRead> {
    const record = await readFillRecord(d.solana.reads, program(), o.orderId)
    if (record)
      return {
        filled: true,
        amount: record.amount,
        claimant: record.claimant,
        filledAt: Number(record.filledAt),
        ref: o.deliverRef ?? undefined,
      }
    if (!o.deliverRef) return { filled: false, inFlight: false }
    const [status] = await d.solana.reads.signatureStatuses([o.deliverRef], { searchTransactionHistory: true })
    if (status) return { filled: false, inFlight: !status.err }
    return { filled: false, inFlight: (await solanaNow(d.solana.reads)) <= o.fillDeadline }
  }

  async function deliver(o: XOrder): Promise<{ ref: string }> {
    const tokens = await chainTokens(d.solana)
    const mint = Object.values(tokens).find((t) => t.mint.toBase58() === o.outputToken)
    if (!mint)
      throw new BaseError(
        'UNKNOWN_TOKEN',
        `the output mint ${o.outputToken} of ${o.orderId} is not a token of ${d.solana.key}`,
      )
    const recipient = new PublicKey(o.recipient)
    const recipientToken = ataOf(recipient, mint)
    const ixs = [
      // The recipient may hold no account of this mint yet: the solver opens it (and pays its rent).
      createAssociatedTokenAccountIdempotentInstruction(
        d.solver.publicKey,
        recipientToken,
        recipient,
        mint.mint,
        mint.program,
      ),
      fillInstruction({
        program: program(),
        solver: d.solver.publicKey,
        solverToken: ataOf(d.solver.publicKey, mint),
        recipientToken,
        mint: mint.mint,
        fill: { orderId: o.orderId, recipient, amount: o.outputAmount, claimant, fillDeadline: BigInt(o.fillDeadline) },
      }),
    ]
    let ref: string | undefined
    try {
      const sent = await sendSolverTx(d.solana, d.solver, ixs, async (s) => {
        ref = s.ref
        if (!(await d.orders.note(o.orderId, 'opened', { deliverRef: s.ref }))) {
          throw new BaseError('BAD_REQUEST', `order ${o.orderId} is no longer opened: not filling it`)
        }
      })
      return { ref: sent.ref }
    } catch (e) {
      // Refused, failed or expired: it never lands, so the next pass may fill again.
      if (ref && e instanceof BaseError && e.code === 'RELAY_FAILED')
        await d.orders.note(o.orderId, 'opened', { deliverRef: null })
      throw e
    }
  }

  return { read, deliver, claimant }
}
