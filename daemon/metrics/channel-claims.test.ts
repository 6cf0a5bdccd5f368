import { Registry } from 'prom-client'
import { describe, expect, it } from 'vitest'
import type { ClaimReport } from '../../src/sdk/x402/seller/batch-settlement/claim.js'
import { channelClaimMetrics, roundOutcome } from './channel-claims.js'

const report = (o: Partial<ClaimReport> = {}): ClaimReport => ({
  claims: [],
  settlements: [],
  errors: [],
  failedChannels: 0,
  ...o,
})
const claim = (channels: number) => ({ network: 'eip155:84532', token: '0xa1', channels, transaction: '0x01' })

describe('claim round metrics', () => {
  it('names a round idle, ok, failed or error', () => {
    expect(roundOutcome(report())).toBe('idle')
    expect(roundOutcome(report({ claims: [claim(2)] }))).toBe('ok')
    expect(roundOutcome(report({ claims: [claim(2)], errors: ['settle to 0x.. on eip155:84532: failed'] }))).toBe(
      'failed',
    )
    expect(roundOutcome(report({ errors: ['claim of 1 channel(s)'], failedChannels: 1 }))).toBe('failed')
    expect(roundOutcome(undefined)).toBe('error')
  })

  it('counts rounds by outcome and channels claimed or failed', async () => {
    const registry = new Registry()
    const rec = channelClaimMetrics(registry)
    rec.round(report())
    rec.round(report({ claims: [claim(2), claim(1)] }))
    rec.round(report({ errors: ['claim of 4 channel(s)'], failedChannels: 4 }))
    rec.round(undefined)
    const text = await registry.metrics()
    for (const line of [
      'parx_channel_claim_rounds_total{outcome="idle"} 1',
      'parx_channel_claim_rounds_total{outcome="ok"} 1',
      'parx_channel_claim_rounds_total{outcome="failed"} 1',
      'parx_channel_claim_rounds_total{outcome="error"} 1',
      'parx_channel_claims_total{outcome="claimed"} 3',
      'parx_channel_claims_total{outcome="failed"} 4',
    ])
      expect(text.split('\n')).toContain(line)
  })
})
