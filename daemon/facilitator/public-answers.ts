import type { Logger } from 'pino'
import type { PaymentStatus } from '../../src/sdk/x402/status.js'
import { redactText } from '../redact.js'
import type { Facilitator } from './types.js'

/**
 * The facilitator as its routes answer: every `invalidMessage`, `errorMessage` and status
 * `message` without what a caught upstream error carries (an RPC URL and its key, the request
 * body: daemon/redact.ts). The reason codes and revert reasons stay. The settlement ledger keeps
 * the whole message, and the log names what was withheld.
 */
export function withoutUpstreamDetail(f: Facilitator, log: Logger): Facilitator {
  const clean = (text: string, where: string): string => {
    const out = redactText(text)
    if (out !== text) log.warn({ where, detail: text }, 'upstream detail withheld from the answer')
    return out
  }
  const status = (p: PaymentStatus): PaymentStatus => (p.message ? { ...p, message: clean(p.message, 'status') } : p)
  return {
    ...f,
    async verify(p) {
      const r = await f.verify(p)
      return r.invalidMessage ? { ...r, invalidMessage: clean(r.invalidMessage, 'verify') } : r
    },
    async settle(p) {
      const r = await f.settle(p)
      return r.errorMessage ? { ...r, errorMessage: clean(r.errorMessage, 'settle') } : r
    },
    statusOf: async (paymentId, payTo) => status(await f.statusOf(paymentId, payTo)),
    statusOfTransaction: async (tx) => {
      const t = await f.statusOfTransaction(tx)
      return { ...t, payments: t.payments.map(status) }
    },
  }
}
