import { Keypair } from '@solana/web3.js'
import { describe, expect, it } from 'vitest'
import { reasons } from '../reasons.js'
import type { PaymentRequirements } from '../types.js'
import {
  checkSplAuthorization,
  createSplPayload,
  keypairSigner,
  parseSplPayload,
  splReplayKey,
} from './delegated-spl.js'
import { checkSplUpto, createSplUptoPayload, parseSplUptoPayload, splUptoMessage, splUptoReplayKey } from './upto.js'

const payer = Keypair.generate()
const seller = Keypair.generate().publicKey.toBase58()
const r: PaymentRequirements = {
  scheme: 'upto',
  network: 'solana:x',
  asset: 'mint',
  amount: '5000',
  payTo: seller,
  maxTimeoutSeconds: 60,
  extra: {},
}
const now = 1_700_000_000n

const parsed = (payload: Record<string, unknown>) => {
  const a = parseSplUptoPayload(payload)
  if ('reason' in a) throw new Error(a.message)
  return a
}

describe('Solana upto (delegated-spl, metered)', () => {
  it('signs its own message, naming the maximum', () => {
    const text = new TextDecoder().decode(
      splUptoMessage({ from: 'A', to: 'B', amount: 5n, nonce: 'n1', deadline: 99n }),
    )
    expect(text).toBe('upto|from:A|to:B|max:5|nonce:n1|deadline:99')
  })

  it('accepts what the payer signed for exactly the maximum', async () => {
    const a = parsed(await createSplUptoPayload(keypairSigner(payer), r, now))
    expect(a).toMatchObject({ from: payer.publicKey.toBase58(), to: seller, amount: 5000n, deadline: now + 60n })
    expect(checkSplUpto(a, r, now)).toBeUndefined()
  })

  it('never reads an exact signature as upto, nor an upto one as exact', async () => {
    const exact = parsed(await createSplPayload(keypairSigner(payer), r, now))
    expect(checkSplUpto(exact, r, now)?.reason).toBe(reasons.svmSplSignature)
    const upto = parseSplPayload(await createSplUptoPayload(keypairSigner(payer), r, now))
    if ('reason' in upto) throw new Error(upto.message)
    expect(checkSplAuthorization(upto, r, now)?.reason).toBe(reasons.svmSplSignature)
  })

  it('checks recipient, the maximum against the requirements, and the window', async () => {
    const a = parsed(await createSplUptoPayload(keypairSigner(payer), r, now))
    expect(checkSplUpto(a, { ...r, payTo: Keypair.generate().publicKey.toBase58() }, now)?.reason).toBe(
      reasons.svmSplRecipientMismatch,
    )
    expect(checkSplUpto(a, { ...r, amount: '4999' }, now)?.reason).toBe(reasons.svmSplAmountMismatch)
    expect(checkSplUpto(a, { ...r, amount: '5001' }, now)?.reason).toBe(reasons.svmSplAmountMismatch)
    expect(checkSplUpto(a, r, now + 120n)?.reason).toBe(reasons.svmSplDeadline)
    expect(checkSplUpto({ ...a, amount: 4000n }, { ...r, amount: '4000' }, now)?.reason).toBe(reasons.svmSplSignature)
  })

  it('keys its replays apart from delegated-spl ones', () => {
    const a = { from: payer.publicKey.toBase58(), nonce: 'n' }
    expect(splUptoReplayKey('solana:x', a)).not.toBe(splReplayKey('solana:x', a))
  })
})
