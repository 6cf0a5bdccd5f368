import { describe, expect, it } from 'vitest'
import { causalOrder } from './causal-order.js'

const row = (sender: string, nonce: number, created_at: number) => ({
  network: 'local-base',
  sender,
  nonce,
  created_at,
})

describe('causalOrder', () => {
  it('replays across senders in the order they were signed, whatever their addresses', () => {
    const mint = row('0xdd', 7, 1_000)
    const relay = row('0xaa', 3, 1_005)
    expect(causalOrder([relay, mint])).toEqual([mint, relay])
  })

  it('keeps each sender in nonce order even when its rows were recorded out of it', () => {
    const rows = [row('0xaa', 1, 10), row('0xaa', 0, 12), row('0xbb', 5, 11)]
    expect(causalOrder(rows).map((r) => `${r.sender}:${r.nonce}`)).toEqual(['0xbb:5', '0xaa:0', '0xaa:1'])
  })

  it('returns every row once', () => {
    const rows = [row('0xaa', 0, 3), row('0xbb', 0, 1), row('0xaa', 1, 2), row('0xcc', 9, 2)]
    const out = causalOrder(rows)
    expect(out).toHaveLength(4)
    expect(new Set(out)).toEqual(new Set(rows))
  })
})
