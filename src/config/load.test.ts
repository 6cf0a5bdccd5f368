import { describe, expect, it } from 'vitest'
import { loadConfig } from './load.js'

describe('loadConfig', () => {
  it('applies defaults', () => {
    const c = loadConfig({ env: { HOME: '/home/u' }, file: {} })
    expect(c).toMatchObject({
      profile: 'local',
      host: '127.0.0.1',
      port: 8420,
      auth: { enforce: true, keyPrefix: 'parx' },
    })
    expect(c.dataDir).toBe('/home/u/.local/share/parx/local')
  })

  it('takes flags over env over file', () => {
    const file = { port: 1000, host: '0.0.0.0', logLevel: 'debug' }
    const env = { PARX_PORT: '2000', PARX_HOST: '127.0.0.2' }
    const c = loadConfig({ file, env, flags: { port: '3000', host: undefined } })
    expect(c.port).toBe(3000)
    expect(c.host).toBe('127.0.0.2')
    expect(c.logLevel).toBe('debug')
  })

  it('reads nested settings, RPC URLs and flow switches from the environment', () => {
    const c = loadConfig({
      file: {},
      env: {
        PARX_AUTH_ENFORCE: 'false',
        PARX_RPC_BASE_SEPOLIA: 'https://rpc.example/base',
        PARX_FLOWS: 'base.swap=off,sol.swap=on',
        PARX_MAX_USD: '50',
      },
    })
    expect(c.auth.enforce).toBe(false)
    expect(c.rpc['base-sepolia']).toBe('https://rpc.example/base')
    expect(c.flows).toEqual({ 'base.swap': false, 'sol.swap': true })
    expect(c.limits.maxUsd).toBe(50)
  })

  it('metrics: on, no port of their own by default, on 127.0.0.1 whatever the API host; PARX_METRICS_* and the --metrics-port flag (serve passes it as metrics.port)', () => {
    expect(loadConfig({ env: {}, file: {} }).metrics).toEqual({ enabled: true, host: '127.0.0.1' })
    expect(loadConfig({ env: { PARX_METRICS_ENABLED: 'false', PARX_METRICS_PORT: '9464' }, file: {} }).metrics).toEqual(
      { enabled: false, port: 9464, host: '127.0.0.1' },
    )
    expect(
      loadConfig({ env: { PARX_METRICS_PORT: '9464' }, file: {}, flags: { metrics: { port: '0' } } }).metrics,
    ).toEqual({ enabled: true, port: 0, host: '127.0.0.1' })
    expect(() => loadConfig({ env: { PARX_METRICS_PORT: '70000' }, file: {} })).toThrow(/metrics\.port/)
    expect(loadConfig({ env: { PARX_HOST: '0.0.0.0', PARX_METRICS_PORT: '9464' }, file: {} }).metrics.host).toBe(
      '127.0.0.1',
    )
    expect(loadConfig({ env: { PARX_HOST: '0.0.0.0', PARX_METRICS_HOST: '127.0.0.5' }, file: {} }).metrics.host).toBe(
      '127.0.0.5',
    )
    expect(loadConfig({ env: {}, file: { metrics: { host: '127.0.0.6' } } }).metrics.host).toBe('127.0.0.6')
  })

  it('takes the receipt key from PARX_RECEIPT_KEY (keys.receipt) and refuses one that is not a hex key', () => {
    const key = `0x${'ab'.repeat(32)}`
    expect(
      loadConfig({ env: { PARX_RECEIPT_KEY: key }, file: {}, flags: { dataDir: '/nonexistent' } }).keys.receipt,
    ).toBe(key)
    expect(() =>
      loadConfig({ env: { PARX_RECEIPT_KEY: '0x1234' }, file: {}, flags: { dataDir: '/nonexistent' } }),
    ).toThrow(/keys\.receipt/)
  })

  it('platform.paidUpstreamTimeoutMs: 20 s by default, PARX_PAID_UPSTREAM_TIMEOUT_MS sets it; outside 100-25000 ms or not a whole number it is refused naming the setting', () => {
    expect(loadConfig({ env: {}, file: {} }).platform.paidUpstreamTimeoutMs).toBe(20_000)
    expect(
      loadConfig({ env: { PARX_PAID_UPSTREAM_TIMEOUT_MS: '1500' }, file: {} }).platform.paidUpstreamTimeoutMs,
    ).toBe(1500)
    expect(
      loadConfig({ env: {}, file: { platform: { paidUpstreamTimeoutMs: 100 } } }).platform.paidUpstreamTimeoutMs,
    ).toBe(100)
    expect(() => loadConfig({ env: { PARX_PAID_UPSTREAM_TIMEOUT_MS: '25001' }, file: {} })).toThrow(
      /platform\.paidUpstreamTimeoutMs: at most 25000 ms: an agent's pay waits 30 s/,
    )
    for (const bad of ['99', '1.5', 'soon'])
      expect(() => loadConfig({ env: { PARX_PAID_UPSTREAM_TIMEOUT_MS: bad }, file: {} })).toThrow(
        /invalid configuration at platform\.paidUpstreamTimeoutMs/,
      )
  })

  it('pay.heldRecheckEverySeconds: 5 by default, PARX_PAY_HELD_RECHECK_EVERY_SECONDS sets it (fractions too); outside 0.1-300 s or not a number it is refused naming the setting', () => {
    expect(loadConfig({ env: {}, file: {} }).pay.heldRecheckEverySeconds).toBe(5)
    expect(
      loadConfig({ env: { PARX_PAY_HELD_RECHECK_EVERY_SECONDS: '0.5' }, file: {} }).pay.heldRecheckEverySeconds,
    ).toBe(0.5)
    expect(loadConfig({ env: {}, file: { pay: { heldRecheckEverySeconds: 300 } } }).pay.heldRecheckEverySeconds).toBe(
      300,
    )
    for (const bad of ['0', '0.05', '301', '-1', 'often'])
      expect(() => loadConfig({ env: { PARX_PAY_HELD_RECHECK_EVERY_SECONDS: bad }, file: {} })).toThrow(
        /invalid configuration at pay\.heldRecheckEverySeconds/,
      )
  })

  it('is read-only once loaded', () => {
    const c = loadConfig({ env: {}, file: {} })
    expect(Object.isFrozen(c)).toBe(true)
    expect(Object.isFrozen(c.auth)).toBe(true)
  })

  it('rejects invalid values naming the setting', () => {
    expect(() => loadConfig({ env: { PARX_PORT: 'abc' }, file: {} })).toThrow(/port/)
    expect(() => loadConfig({ env: {}, file: { profile: 'moon' } })).toThrow(/profile/)
  })

  it('worker cadences: pay.holdRefreshEverySeconds (5 s, to 300), sellerHolds.sweepEverySeconds (30 s), from 0.1', () => {
    const d = loadConfig({ env: {}, file: {} })
    expect([d.pay.holdRefreshEverySeconds, d.sellerHolds.sweepEverySeconds]).toEqual([5, 30])
    const c = loadConfig({
      env: { PARX_PAY_HOLD_REFRESH_EVERY_SECONDS: '0.5', PARX_SELLER_HOLDS_SWEEP_EVERY_SECONDS: '0.25' },
      file: {},
    })
    expect([c.pay.holdRefreshEverySeconds, c.sellerHolds.sweepEverySeconds]).toEqual([0.5, 0.25])
    const most = loadConfig({
      env: {},
      file: { pay: { holdRefreshEverySeconds: 300 }, sellerHolds: { sweepEverySeconds: 3600 } },
    })
    expect([most.pay.holdRefreshEverySeconds, most.sellerHolds.sweepEverySeconds]).toEqual([300, 3600])
    for (const bad of ['0', '0.05', '-1', '301', 'often'])
      expect(() => loadConfig({ env: { PARX_PAY_HOLD_REFRESH_EVERY_SECONDS: bad }, file: {} })).toThrow(
        /holdRefreshEverySeconds/,
      )
    for (const bad of ['0', '0.05', '-1', '3601', 'often'])
      expect(() => loadConfig({ env: { PARX_SELLER_HOLDS_SWEEP_EVERY_SECONDS: bad }, file: {} })).toThrow(
        /sweepEverySeconds/,
      )
  })
})
