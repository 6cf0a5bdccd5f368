import type { Logger } from 'pino'
import type { EvmChain } from '../chains/evm/chain.js'
import { decodeProof, hasExpired, usedIn, wasUsed } from './pay/proof.js'
import type { SpendsLedger } from './spends.js'

export type PendingSpendsParameters = {
  spends: SpendsLedger
  evm: Record<string, EvmChain>
  log: Logger
  now?: () => number
}

export type PendingSpendsResult = { confirmed: number; released: number; kept: number }

/**
 * The worker leader's recheck of pay spends held after the seller did not settle
 * (daemon/buyer/pay/index.ts `decide`), of sends whose user operation the bundler took without
 * answering (daemon/buyer/send.ts, SEND_PENDING), and of any signed spend a crash left
 * reserved: once the signed payment's validBefore (the operation's validUntil) has passed, it is
 * decided from the chain alone. Expired first (the
 * chain's head past it), then used or not, in that order, so "unused" is final: used means charged
 * (confirmed, with the transaction when found); unused means nothing can move any more (released).
 * Any chain question left unanswered keeps the spend reserved for the next round: never released
 * on doubt.
 */
export async function recheckPendingSpends(p: PendingSpendsParameters): Promise<PendingSpendsResult> {
  const result: PendingSpendsResult = { confirmed: 0, released: 0, kept: 0 }
  const nowSeconds = Math.floor((p.now?.() ?? Date.now()) / 1000)
  for (const row of await p.spends.expired(nowSeconds)) {
    const chain = p.evm[row.network]
    const proof = row.proof === null ? undefined : decodeProof(row.proof)
    if (!chain || !proof) {
      result.kept++
      p.log.warn(
        { spend: row.id, network: row.network },
        'held pay spend: no chain or no readable proof; it stays reserved',
      )
      continue
    }
    const expired = await hasExpired(chain, proof, BigInt(nowSeconds))
    const used = expired === undefined ? undefined : await wasUsed(chain, proof)
    if (used === true) {
      await p.spends.confirm(row.id, {
        tx: await usedIn(chain, proof),
        ...(proof.kind === 'userOp' ? { userOp: proof.hash } : {}),
      })
      result.confirmed++
    } else if (expired === true && used === false) {
      const what = proof.kind === 'userOp' ? `the user operation ${proof.hash} expired` : 'the signed payment expired'
      await p.spends.release(row.id, `${what} at ${new Date(Number(proof.validBefore) * 1000).toISOString()} unused`)
      result.released++
    } else {
      // Not past on chain yet (an idle chain within the margin), or the chain did not answer.
      result.kept++
    }
  }
  return result
}
