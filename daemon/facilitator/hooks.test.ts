import { describe, expect, it } from 'vitest'
import type { SettleResponse, VerifyResponse } from '../../src/sdk/x402/types.js'
import type { Payment } from '../../src/sdk/x402/wire.js'
import { withHooks } from './hooks.js'

/**
 * The hook runner around verify and settle. The inner facilitator here is a recorder: what is
 * under test is the order of calls and what an abort does to the answer and to the inner calls.
 */
const payment: Payment = {
  version: 2,
  scheme: 'exact',
  network: 'eip155:31337',
  payload: { signature: '0xabc' },
  requirements: {
    scheme: 'exact',
    network: 'eip155:31337',
    asset: '0x0000000000000000000000000000000000000001',
    amount: '10',
    payTo: '0x0000000000000000000000000000000000000002',
    maxTimeoutSeconds: 60,
    extra: {},
  },
}

function inner(
  verify: VerifyResponse = { isValid: true, payer: '0xpayer' },
  settle: SettleResponse = { success: true, payer: '0xpayer', transaction: '0xtx', network: 'eip155:31337' },
) {
  const calls: string[] = []
  return {
    calls,
    f: {
      extra: () => 'kept',
      async verify(_p: Payment) {
        calls.push('verify')
        return verify
      },
      async settle(_p: Payment) {
        calls.push('settle')
        return settle
      },
    },
  }
}
const warnings: unknown[] = []
const log = { warn: (o: unknown) => void warnings.push(o) } as never

describe('facilitator hooks', () => {
  it('run in registration order around verify and settle, see the payment and the result, and keep the other methods', async () => {
    const { calls, f } = inner()
    const h = withHooks(f, log)
    const seen: unknown[] = []
    h.onBeforeVerify(async (c) => void calls.push(`before-verify-1:${String(c.paymentPayload.payload.signature)}`))
      .onBeforeVerify(async () => void calls.push('before-verify-2'))
      .onAfterVerify(async (c) => void calls.push(`after-verify:${String(c.result.isValid)}`))
      .onBeforeSettle(async (c) => void calls.push(`before-settle:${c.requirements.amount}`))
      .onAfterSettle(async (c) => void seen.push(c.result))
    expect(await h.verify(payment)).toEqual({ isValid: true, payer: '0xpayer' })
    expect(await h.settle(payment)).toMatchObject({ success: true, transaction: '0xtx' })
    expect(calls).toEqual([
      'before-verify-1:0xabc',
      'before-verify-2',
      'verify',
      'after-verify:true',
      'before-settle:10',
      'settle',
    ])
    expect(seen).toEqual([{ success: true, payer: '0xpayer', transaction: '0xtx', network: 'eip155:31337' }])
    expect(h.extra()).toBe('kept')
  })

  it('a before-verify abort answers isValid false with its reason; verify and later hooks are not called', async () => {
    const { calls, f } = inner()
    const h = withHooks(f, log)
      .onBeforeVerify(async () => ({ abort: true, reason: 'payer_blocked', message: 'on the blocklist' }))
      .onBeforeVerify(async () => void calls.push('second'))
    expect(await h.verify(payment)).toEqual({
      isValid: false,
      invalidReason: 'payer_blocked',
      invalidMessage: 'on the blocklist',
      payer: '',
    })
    expect(calls).toEqual([])
  })

  it('an after-verify abort turns a valid payment into a refused one', async () => {
    const { calls, f } = inner()
    const h = withHooks(f, log).onAfterVerify(async (c) =>
      c.result.payer === '0xpayer' ? { abort: true, reason: 'risk_check_failed' } : undefined,
    )
    const v = await h.verify(payment)
    expect(v).toMatchObject({ isValid: false, invalidReason: 'risk_check_failed', payer: '0xpayer' })
    expect(calls).toEqual(['verify'])
  })

  it('after-verify hooks do not run on an invalid payment', async () => {
    const { f } = inner({ isValid: false, invalidReason: 'insufficient_funds', payer: '0xpayer' })
    let ran = false
    const h = withHooks(f, log).onAfterVerify(async () => void (ran = true))
    expect(await h.verify(payment)).toMatchObject({ isValid: false, invalidReason: 'insufficient_funds' })
    expect(ran).toBe(false)
  })

  it('a before-settle abort sends nothing and answers success false; after-settle hooks still see that answer', async () => {
    const { calls, f } = inner()
    const seen: SettleResponse[] = []
    const h = withHooks(f, log)
      .onBeforeSettle(async () => ({ abort: true, reason: 'payee_paused' }))
      .onAfterSettle(async (c) => void seen.push(c.result))
    const r = await h.settle(payment)
    expect(r).toMatchObject({ success: false, errorReason: 'payee_paused', transaction: '', network: 'eip155:31337' })
    expect(calls).toEqual([])
    expect(seen).toEqual([r])
  })

  it('a guard that throws refuses the payment; an after-settle hook that throws is logged and changes nothing', async () => {
    const { calls, f } = inner()
    const h = withHooks(f, log).onBeforeVerify(async () => {
      throw new Error('risk service down')
    })
    expect(await h.verify(payment)).toMatchObject({
      isValid: false,
      invalidReason: 'unexpected_verify_error',
      invalidMessage: 'a hook failed: risk service down',
    })
    expect(calls).toEqual([])
    const { f: f2 } = inner()
    const before = warnings.length
    const h2 = withHooks(f2, log).onAfterSettle(async () => {
      throw new Error('audit log full')
    })
    expect(await h2.settle(payment)).toMatchObject({ success: true, transaction: '0xtx' })
    expect(warnings.length).toBe(before + 1)
  })
})
