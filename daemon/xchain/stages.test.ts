import { describe, expect, it } from 'vitest'
import { canMove, publicStatus, STAGES } from './stages.js'

describe('cross-chain stages', () => {
  it('maps every stage to one public status, locks not seen confirmed to unknown', () => {
    expect(Object.fromEntries(STAGES.map((s) => [s, publicStatus(s)]))).toEqual({
      built: 'unknown',
      opened: 'pending',
      delivered: 'pending',
      attested: 'pending',
      claimed: 'claimed',
      refunded: 'refunded',
      dropped: 'unknown',
      attention: 'attention',
    })
  })
  it('ends an order once: nothing leaves claimed or refunded, and a delivered order never goes back to opened', () => {
    for (const to of STAGES) {
      expect(canMove('claimed', to)).toBe(false)
      expect(canMove('refunded', to)).toBe(false)
    }
    expect(canMove('delivered', 'opened')).toBe(false)
    expect(canMove('built', 'delivered')).toBe(false)
    expect(canMove('opened', 'delivered')).toBe(true)
  })
})
