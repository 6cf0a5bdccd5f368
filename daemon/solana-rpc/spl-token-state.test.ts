import { randomBytes } from 'node:crypto'
import { ACCOUNT_SIZE, AccountLayout, TOKEN_PROGRAM_ID } from '@solana/spl-token'
import { describe, expect, it } from 'vitest'
import { decodeTokenAccount } from './spl-token-state.js'

describe('decodeTokenAccount', () => {
  it('reads what AccountLayout.decode reads, every option set or not', () => {
    for (let i = 0; i < 200; i++) {
      const data = randomBytes(ACCOUNT_SIZE)
      data[108] = 1 + (i % 2) // initialized or frozen
      for (const at of [72, 109, 129]) data.writeUInt32LE(i & (at === 72 ? 1 : at === 109 ? 2 : 4) ? 1 : 0, at)
      const a = AccountLayout.decode(data)
      expect(decodeTokenAccount({ lamports: 1n, owner: TOKEN_PROGRAM_ID.toBase58(), data, executable: false })).toEqual(
        {
          mint: a.mint.toBase58(),
          owner: a.owner.toBase58(),
          amount: a.amount,
          delegate: a.delegateOption ? a.delegate.toBase58() : null,
          state: i % 2 ? 'frozen' : 'initialized',
          isNative: a.isNativeOption ? a.isNative : null,
          delegatedAmount: a.delegatedAmount,
          closeAuthority: a.closeAuthorityOption ? a.closeAuthority.toBase58() : null,
        },
      )
    }
  })

  it('an uninitialized account is no token account', () => {
    const data = randomBytes(ACCOUNT_SIZE)
    data[108] = 0
    expect(
      decodeTokenAccount({ lamports: 1n, owner: TOKEN_PROGRAM_ID.toBase58(), data, executable: false }),
    ).toBeUndefined()
  })
})
