import { summary } from './lib.js'
import type { Request } from './x402-payer.js'

/** A signed payment with a payment-identifier (the `payment-identifier` extension) in its payload. */
export function withPaymentId(r: Request, id: string): Request {
  const p = r.paymentPayload as Record<string, unknown>
  return { ...r, paymentPayload: { ...p, extensions: { 'payment-identifier': { info: { required: false, id } } } } }
}

type Call = (op: 'verify' | 'settle', body: Request) => Promise<{ ms: number; ok: boolean }>

/**
 * Verify then settle with a payment-identifier in every payload, timed as sellers call them; and
 * (`repeat`) the same payment settled again under its id, which parx answers from its ledger with
 * the first transaction (the reference has no idempotency: the repeat is refused there).
 */
export async function paymentIdLatency(call: Call, sign: () => Promise<Request>, n: number, tag: string) {
  const verify: number[] = []
  const settle: number[] = []
  const repeat: number[] = []
  let failed = 0
  for (let i = 0; i < n + 5; i++) {
    const r = withPaymentId(
      await sign(),
      `pay_bench_${tag}_${process.pid}_${i}_${Math.random().toString(36).slice(2, 10)}`,
    )
    const v = await call('verify', r)
    const s = await call('settle', r)
    const again = await call('settle', r)
    if (i < 5) continue // warm-up
    verify.push(v.ms)
    if (s.ok) settle.push(s.ms)
    else failed++
    if (again.ok) repeat.push(again.ms)
  }
  return {
    verify_pid_p50: summary(verify).p50,
    verify_pid_p99: summary(verify).p99,
    settle_pid_p50: summary(settle).p50,
    settle_pid_p99: summary(settle).p99,
    settle_pid_failed: failed,
    ...(repeat.length ? { settle_pid_repeat_p50: summary(repeat).p50 } : {}),
  }
}

/**
 * The time from a delayed receipt to `completed` on the status route: mining is paused, a payment
 * settled (answered `settlement_pending` once the receipt wait runs out), mining resumed, and
 * GET /facilitator/status/:paymentId read until it says `completed`; timed from the moment the
 * block with the transaction is mined.
 */
export async function pendingToCompleted(o: {
  facilitator: string
  rpc(method: string, params?: unknown[]): Promise<unknown>
  sign(): Promise<Request>
  rounds: number
}) {
  const toCompleted: number[] = []
  const pendingAnswer: number[] = []
  let notPending = 0
  for (let i = 0; i < o.rounds; i++) {
    const id = `pay_bench_pending_${process.pid}_${i}_${Math.random().toString(36).slice(2, 10)}`
    const r = withPaymentId(await o.sign(), id)
    await o.rpc('evm_setAutomine', [false])
    let answer: { errorReason?: string }
    const t0 = performance.now()
    try {
      const res = await fetch(`${o.facilitator}/settle`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(r),
      })
      answer = (await res.json()) as { errorReason?: string }
      pendingAnswer.push(performance.now() - t0)
    } finally {
      await o.rpc('evm_setAutomine', [true])
      await o.rpc('evm_mine')
    }
    const mined = performance.now()
    if (answer.errorReason !== 'settlement_pending') {
      notPending++
      continue
    }
    for (;;) {
      const st = (await (await fetch(`${o.facilitator}/status/${id}`)).json()) as { status?: string }
      if (st.status !== 'pending') {
        if (st.status === 'completed') toCompleted.push(performance.now() - mined)
        break
      }
      await new Promise((res) => setTimeout(res, 5))
    }
  }
  return {
    pending_answer_p50: summary(pendingAnswer).p50,
    pending_to_completed_p50: summary(toCompleted).p50,
    pending_to_completed_max: Math.max(...toCompleted),
    pending_to_completed_n: toCompleted.length,
    pending_not_pending: notPending,
  }
}

/** Waits until the node's pool holds no pending transaction, then a little more. */
export async function quietChain(rpc: (method: string, params?: unknown[]) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const r = (await rpc('txpool_status')) as { result?: { pending?: string } }
    if (Number(r.result?.pending ?? 0) === 0) break
    await new Promise((res) => setTimeout(res, 50))
  }
  await new Promise((res) => setTimeout(res, 500))
}
