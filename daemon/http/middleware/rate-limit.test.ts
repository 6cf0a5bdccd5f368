import { describe, expect, it } from 'vitest'
import { rateLimiter } from './rate-limit.js'

describe('rateLimiter', () => {
  it('allows a burst, then refuses with RATE_LIMITED until the bucket refills', async () => {
    let t = 0
    const rl = rateLimiter({ perSecond: 2, burst: 3, exemptLoopback: true, now: () => t })
    for (let i = 0; i < 3; i++) await rl.check('10.0.0.1')
    expect(() => rl.check('10.0.0.1')).toThrow(expect.objectContaining({ code: 'RATE_LIMITED', status: 429 }))
    // another client is not affected
    await rl.check('10.0.0.2')
    t += 500
    await rl.check('10.0.0.1')
    expect(() => rl.check('10.0.0.1')).toThrow(/too many requests/)
  })

  it('exempts loopback when configured', async () => {
    const rl = rateLimiter({ perSecond: 1, burst: 1, exemptLoopback: true })
    for (let i = 0; i < 10; i++) await rl.check('127.0.0.1')
    const strict = rateLimiter({ perSecond: 1, burst: 1, exemptLoopback: false })
    await strict.check('::1')
    expect(() => strict.check('::1')).toThrow(/too many requests/)
  })
})
