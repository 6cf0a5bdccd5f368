import { Keypair, PublicKey } from '@solana/web3.js'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { fillRecordPda, orderPda, vaultPda } from './client.js'

describe('order-scoped PDAs', () => {
  afterEach(() => vi.restoreAllMocks())

  it('are derived once per program, seed and order, and equal a fresh derivation', () => {
    const program = Keypair.generate().publicKey
    const orderId = `0x${'ab'.repeat(32)}` as const
    const expected = PublicKey.findProgramAddressSync(
      [new TextEncoder().encode('order'), Buffer.from('ab'.repeat(32), 'hex')],
      program,
    )[0]
    const derive = vi.spyOn(PublicKey, 'findProgramAddressSync')
    expect(orderPda(program, orderId).equals(expected)).toBe(true)
    expect(orderPda(program, Buffer.from('ab'.repeat(32), 'hex')).equals(expected)).toBe(true)
    expect(derive).toHaveBeenCalledTimes(1)
    // Another seed or program is another address.
    expect(vaultPda(program, orderId).equals(expected)).toBe(false)
    expect(fillRecordPda(Keypair.generate().publicKey, orderId).equals(expected)).toBe(false)
    expect(derive).toHaveBeenCalledTimes(3)
  })
})
