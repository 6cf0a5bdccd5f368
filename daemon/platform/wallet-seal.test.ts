import { randomBytes, randomUUID } from 'node:crypto'
import { generatePrivateKey } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { walletSeal } from './wallet-seal.js'

describe('walletSeal', () => {
  const key = randomBytes(32).toString('hex')

  it('opens what it sealed, and the sealed text does not contain the key', () => {
    const s = walletSeal(key)
    const pk = generatePrivateKey()
    const id = randomUUID()
    const sealed = s.seal(id, pk)
    expect(sealed).not.toContain(pk.slice(2))
    expect(s.open(id, sealed)).toBe(pk)
  })

  it('refuses a sealed key moved to another agent, or opened with another platform key', () => {
    const pk = generatePrivateKey()
    const id = randomUUID()
    const sealed = walletSeal(key).seal(id, pk)
    expect(() => walletSeal(key).open(randomUUID(), sealed)).toThrow()
    expect(() => walletSeal(randomBytes(32).toString('hex')).open(id, sealed)).toThrow()
  })

  it('refuses a key of the wrong length', () => {
    expect(() => walletSeal('abcd')).toThrow(/32 bytes/)
  })
})
