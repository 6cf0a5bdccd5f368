import type { Logger } from 'pino'
import { BaseError } from '../../src/errors/index.js'
import type { XchainRail } from '../../src/sdk/xchain/wire.js'
import type { Duties } from '../worker/leader.js'
import type { AttestationStore } from './attestation-store.js'
import type { Attestor } from './attestors/attestor.js'
import { collectQuorum, QUORUM, quorumReachable } from './attestors/quorum.js'
import type { OrderStore, XOrder } from './order-store.js'
import type { Rail, SourceRead } from './rail.js'
import type { Reservations } from './reservations.js'
import type { SolverSwitches } from './solver-switches.js'
import type { Stage } from './stages.js'

export type SolverWorkerDeps = {
  rails: Partial<Record<XchainRail, Rail>>
  orders: OrderStore
  attestations: AttestationStore
  reservations: Reservations
  switches: SolverSwitches
  attestors: Attestor[]
  log: Logger
  /** How often the worker looks at every active order while there are any. */
  pollMs: number
  /**
   * With no active order the worker sleeps until woken (`wake`: an order built or relayed here, or
   * announced by another replica) and looks at the store only this often, a safety net for a wake
   * that never came. Default 5 s.
   */
  idleSweepMs?: number
  /** Seconds before fillDeadline after which the solver no longer starts a fill (it could land late). */
  fillMarginSeconds?: number
}

export type SolverWorker = {
  /** The leader-only duty: polls active orders until stopped. */
  duty: Duties
  /** Runs one order's next steps now (the operator's settle, the status route's reconcile); returns it after. */
  step(orderId: string): Promise<XOrder | undefined>
  /** The operator's refund: an expired lock goes back to its user now, whatever the solver did. */
  refundNow(orderId: string): Promise<XOrder | undefined>
  /**
   * An order was created or changed outside the worker. With its id, and while the duty runs here,
   * that order is stepped now; an idle duty also starts polling. Without an id (a replica's
   * announcement whose order is unknown) the duty looks at every open order now.
   */
  wake(orderId?: string): void
}

/**
 * The solver worker: moves every active order through its stages (daemon/xchain/stages.ts), one
 * persisted step at a time, so a crash at any point resumes from the store and the chains:
 *
 * - every step starts by reading the chains (the lock on the origin, the fill record on the
 *   destination), never trusting the row alone;
 * - a fill is sent only when the destination has no fill record for this order and no fill of it
 *   is in flight, and the record is read again after (the guard, before and after);
 * - a claim or refund transaction is persisted before it is broadcast, and its fate is read
 *   before another is sent.
 */
export function solverWorker(d: SolverWorkerDeps): SolverWorker {
  const margin = d.fillMarginSeconds ?? 2
  const busy = new Map<string, Promise<XOrder | undefined>>()
  /** Persisted transactions this process has sent again (each once; the node retries it from there). */
  const resent = new Set<string>()
  const lastFailure = new Map<string, { reason: string; at: number }>()

  /**
   * Records a failed attempt (the reason shows in the row and the heartbeat's counts). A step that
   * keeps failing the same way (an attestor down, an RPC away) is recorded every 5 s, not every
   * pass. Returns whether it was recorded (callers log only then).
   */
  const failed = async (orderId: string, reason: string): Promise<boolean> => {
    const last = lastFailure.get(orderId)
    if (last && last.reason === reason && Date.now() - last.at < 5_000) return false
    lastFailure.set(orderId, { reason, at: Date.now() })
    if (lastFailure.size > 10_000) lastFailure.delete(lastFailure.keys().next().value!)
    await d.orders.failed(orderId, reason)
    return true
  }

  const once = async (o: XOrder): Promise<boolean> => {
    const rail = d.rails[o.rail]
    if (!rail) return false
    switch (o.stage) {
      case 'built':
        return built(rail, o)
      case 'opened':
        return opened(rail, o)
      case 'delivered':
        return delivered(rail, o)
      case 'attested':
        return attested(rail, o)
      default:
        return false
    }
  }

  /** What the origin chain says ended the order, whatever the row thought. True when it moved. */
  const ended = async (o: XOrder, src: SourceRead): Promise<boolean> => {
    if (src.state === 'claimed') {
      const moved = await d.orders.move(o.orderId, o.stage, 'claimed')
      if (moved) await d.reservations.spend(o.orderId)
      return moved
    }
    if (src.state === 'refunded') {
      const delivered = o.stage === 'delivered' || o.stage === 'attested'
      const moved = delivered
        ? await d.orders.move(o.orderId, o.stage, 'attention', {
            reason: "the lock was refunded to the user after the solver delivered: the solver lost this order's input",
          })
        : await d.orders.move(o.orderId, o.stage, 'refunded')
      if (moved && !delivered) await d.reservations.release(o.orderId)
      return moved
    }
    return false
  }

  const built = async (rail: Rail, o: XOrder) => {
    const src = await rail.readSource(o)
    if (await ended(o, src)) return true
    if (src.state === 'open') return d.orders.move(o.orderId, 'built', 'opened')
    if (src.lockDead) {
      const moved = await d.orders.move(o.orderId, 'built', 'dropped', {
        reason:
          src.lockDeadReason ??
          'the lock transaction never confirmed and its blockhash has expired: build the order again',
      })
      if (moved) await d.reservations.release(o.orderId)
      return moved
    }
    return false
  }

  const opened = async (rail: Rail, o: XOrder) => {
    const src = await rail.readSource(o)
    if (await ended(o, src)) return true
    const fill = await rail.readFill(o)
    if (fill.filled) {
      const moved = await d.orders.move(o.orderId, 'opened', 'delivered', {
        delivered: fill.amount,
        deliverRef: fill.ref ?? o.deliverRef,
      })
      if (moved) await d.reservations.spend(o.orderId)
      return moved
    }
    // Expired first: a fill still "in flight" this late was sent before fillDeadline and can no longer
    // be claimed; the user's refund does not wait for it.
    if (src.now > o.expires) return refund(rail, o)
    if (fill.inFlight) return false
    // By the later of the origin's clock (the order's own) and ours: a fill that could land after the
    // deadline the attestors check, or after the lock expires, is never started.
    if (Math.max(src.now, Date.now() / 1000) >= o.fillDeadline - margin) return false
    if ((await d.switches.paused()).deliveries) return false
    // Our money goes out first: only when a quorum could attest it, or the fill could never be claimed.
    if (!(await quorumReachable(d.attestors))) {
      await failed(o.orderId, `fewer than ${QUORUM} attestors answer: not delivering until they do`)
      return false
    }
    const { ref } = await rail.deliver(o)
    const after = await rail.readFill(o)
    if (!after.filled) {
      await failed(o.orderId, `fill ${ref} was included but the destination shows no fill record for this order`)
      return false
    }
    const moved = await d.orders.move(o.orderId, 'opened', 'delivered', { delivered: after.amount, deliverRef: ref })
    if (moved) await d.reservations.spend(o.orderId)
    d.log.info({ orderId: o.orderId, rail: o.rail, ref }, 'cross-chain order delivered')
    return moved
  }

  const delivered = async (rail: Rail, o: XOrder) => {
    const src = await rail.readSource(o)
    if (await ended(o, src)) return true
    const fill = await rail.readFill(o)
    if (!fill.filled) {
      // Recorded as delivered, yet the destination has no fill: never claim; the user's refund path.
      if (src.now > o.expires) return refund(rail, o)
      await failed(o.orderId, 'recorded as delivered but the destination shows no fill record; not claiming')
      return false
    }
    if (src.now > o.expires) return late(o, 'delivered')
    if ((await d.switches.paused()).claims) return false
    const statement = rail.statement(o, fill)
    const { signatures, refusals } = await collectQuorum(d.attestors, { rail: o.rail, orderId: o.orderId, statement })
    if (signatures.length < QUORUM) {
      await failed(o.orderId, `attestor quorum not met (${signatures.length} of ${QUORUM}): ${refusals.join('; ')}`)
      return false
    }
    await d.attestations.save(
      o.orderId,
      signatures.map((s) => ({ ...s, statement })),
    )
    return d.orders.move(o.orderId, 'delivered', 'attested')
  }

  const attested = async (rail: Rail, o: XOrder) => {
    const src = await rail.readSource(o)
    if (await ended(o, src)) return true
    if (o.claimRef) {
      const fate = await rail.fate(o.claimRef, o.claimValidUntil)
      if (fate === 'pending') await resend(rail, o, o.claimRaw)
      if (fate === 'pending' || fate === 'landed') return false
    }
    if (src.now > o.expires) return late(o, 'attested')
    if ((await d.switches.paused()).claims) return false
    const saved = await d.attestations.of(o.orderId)
    if (saved.length < QUORUM) {
      await failed(o.orderId, `only ${saved.length} attestations on record; asking again`)
      return d.orders.move(o.orderId, 'attested', 'delivered')
    }
    const sent = await rail.claim(o, { statement: saved[0]!.statement, signatures: saved }, async (s) => {
      await d.orders.note(o.orderId, 'attested', {
        claimRef: s.ref,
        claimValidUntil: s.validUntil,
        claimRaw: s.raw ?? null,
      })
    })
    const after = await rail.readSource(o)
    if (after.state === 'claimed') {
      const moved = await d.orders.move(o.orderId, 'attested', 'claimed', { claimRef: sent.ref })
      if (moved) d.log.info({ orderId: o.orderId, rail: o.rail, ref: sent.ref }, 'cross-chain order claimed')
      return moved
    }
    return false
  }

  /**
   * A claim or refund persisted but not seen landing: this process may not be the one that signed
   * it (a leader that died before or during its broadcast), so it is sent again, as is, once per
   * process (the node keeps it from then on). Without this the next leader waits for its blockhash
   * to expire (~60 s on Solana) before it may sign another.
   */
  const resend = async (rail: Rail, o: XOrder, raw: string | null) => {
    if (!raw || !rail.rebroadcast || resent.has(raw)) return
    if (resent.size > 10_000) resent.clear()
    resent.add(raw)
    await rail
      .rebroadcast(raw)
      .catch((err: unknown) =>
        d.log.debug(
          { err, orderId: o.orderId },
          'rebroadcast refused (already processed or expired); its fate decides',
        ),
      )
  }

  /** Expired and never delivered: the input goes back to the user. */
  const refund = async (rail: Rail, o: XOrder) => {
    if (o.refundRef) {
      const fate = await rail.fate(o.refundRef, o.refundValidUntil)
      if (fate === 'pending') await resend(rail, o, o.refundRaw)
      if (fate === 'pending' || fate === 'landed') return false
    }
    const sent = await rail.refund(o, async (s) => {
      await d.orders.note(o.orderId, o.stage, {
        refundRef: s.ref,
        refundValidUntil: s.validUntil,
        refundRaw: s.raw ?? null,
      })
    })
    const after = await rail.readSource(o)
    if (after.state !== 'refunded') return false
    const moved = await d.orders.move(o.orderId, o.stage, 'refunded', { refundRef: sent.ref })
    if (moved) {
      await d.reservations.release(o.orderId)
      d.log.info({ orderId: o.orderId, rail: o.rail, ref: sent.ref }, 'cross-chain order refunded after expiry')
    }
    return moved
  }

  /** Delivered but past expires before the claim: the solver's loss, for an operator to see. */
  const late = (o: XOrder, from: Stage) =>
    d.orders.move(o.orderId, from, 'attention', {
      reason:
        `delivered (${o.deliverRef ?? 'fill on record'}) but not claimed before ` +
        `expires ${o.expires}: the claim window closed; the user may refund the input`,
    })

  /** The order's steps, in turn, until one makes no progress (or it is no longer active). */
  const run = async (orderId: string): Promise<XOrder | undefined> => {
    for (let i = 0; i < 8; i++) {
      const o = await d.orders.get(orderId)
      if (!o) return undefined
      let progressed = false
      try {
        progressed = await once(o)
      } catch (err) {
        const reason = err instanceof Error ? err.message : String(err)
        if (await failed(orderId, reason).catch(() => false))
          d.log.warn({ err, orderId, stage: o.stage }, 'cross-chain step failed; retried on the next pass')
      }
      if (!progressed) return o
    }
    return d.orders.get(orderId)
  }

  /**
   * A step asked for while one of the same order runs is run once more after it (however many ask
   * meanwhile): the running one may have read the chains before what prompted the ask (a relayed
   * lock, a claim seen by the status route); without it the order waited for the next pass.
   */
  const again = new Map<string, Promise<XOrder | undefined>>()
  const step = (orderId: string): Promise<XOrder | undefined> => {
    const running = busy.get(orderId)
    if (running !== undefined) {
      let next = again.get(orderId)
      if (!next) {
        next = running
          .catch(() => undefined)
          .then(() => {
            again.delete(orderId)
            return step(orderId)
          })
        again.set(orderId, next)
      }
      return next
    }
    const p = run(orderId).finally(() => busy.delete(orderId))
    busy.set(orderId, p)
    return p
  }

  const idleSweepMs = d.idleSweepMs ?? 5_000
  let wakeDuty: ((orderId?: string) => void) | undefined

  const duty: Duties = async () => {
    let stopped = false
    let lastBeat = 0
    /** An order was woken during the pass; `passWanted`: a wake without an id. */
    let woken = false
    let passWanted = false
    /** The loop sleeps with no open order seen (the idle sweep), rather than between polls. */
    let idle = false
    let wakeSleep: (() => void) | undefined
    wakeDuty = (orderId) => {
      // The woken order is stepped at once, alone: a pass would also step every order still waiting for
      // its lock, once per wake (two wakes per order: ~2 passes per order with 20 in flight), instead
      // of once per pollMs.
      if (orderId) void step(orderId).catch(() => undefined)
      else passWanted = true
      woken = true
      if (idle || !orderId) wakeSleep?.()
    }
    const loop = (async () => {
      while (!stopped) {
        woken = false
        passWanted = false
        // Unknown (a failed pass) counts as open: looked at again soon.
        let open = true
        try {
          const active = await d.orders.active()
          open = active.length > 0
          for (const o of active) if (!busy.has(o.orderId) && d.rails[o.rail]) void step(o.orderId)
          if (Date.now() - lastBeat > 1_000) {
            lastBeat = Date.now()
            await d.switches.passed(lastBeat)
          }
        } catch (err) {
          d.log.warn({ err }, 'cross-chain worker pass failed; the next pass retries')
        }
        // A wake during a pass that saw nothing open: its order may be newer than the pass's read, so
        // look again now rather than after the idle sweep.
        if (stopped || passWanted || (woken && !open)) continue
        // Orders waiting on a chain are looked at every pollMs; with none, nothing is read until a wake.
        let timer: ReturnType<typeof setTimeout> | undefined
        idle = !open
        await new Promise<void>((resolve) => {
          wakeSleep = resolve
          timer = setTimeout(resolve, open ? d.pollMs : idleSweepMs)
          timer.unref?.()
        })
        clearTimeout(timer)
        wakeSleep = undefined
        idle = false
      }
    })()
    return async () => {
      stopped = true
      wakeDuty = undefined
      wakeSleep?.()
      await loop
      await Promise.allSettled([...busy.values(), ...again.values()])
    }
  }

  const refundNow = async (orderId: string) => {
    const o = await d.orders.get(orderId)
    const rail = o && d.rails[o.rail]
    if (!o || !rail) return o
    const src = await rail.readSource(o)
    if (src.state !== 'open') return step(orderId)
    if (src.now <= o.expires) {
      throw new BaseError(
        'BAD_REQUEST',
        `order ${orderId} expires at ${o.expires} (origin chain time ` +
          `now ${src.now}): a lock is refundable only after its expiry`,
      )
    }
    await refund(rail, o)
    return d.orders.get(orderId)
  }

  return { duty, step, refundNow, wake: (orderId) => wakeDuty?.(orderId) }
}
