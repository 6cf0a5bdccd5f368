import { createTransferCheckedInstruction, getAssociatedTokenAddressSync } from '@solana/spl-token'
import { ComputeBudgetProgram, Keypair, PublicKey, TransactionMessage, VersionedTransaction } from '@solana/web3.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import {
  localSolana,
  nowSeconds,
  settle,
  solanaPayer,
  solRequirements,
  splBody,
  verify,
  type X402Body,
} from './helpers/x402.js'

let d: TestDaemon
let payer: Keypair
const seller = Keypair.generate().publicKey
const PRICE = 2_000_000n // 2 USDC

beforeAll(async () => {
  d = await startTestDaemon()
  payer = await solanaPayer(d, 'USDC', '100')
  await localSolana(d).approve(payer, 'USDC', 50_000_000n)
})
afterAll(async () => d?.close())

const req = () => solRequirements(d, { symbol: 'USDC', amount: PRICE, payTo: seller.toBase58() })
const reasonOf = async (body: X402Body) => {
  const v = await verify(d, body)
  expect(v.isValid, JSON.stringify(v)).toBe(false)
  return v.invalidReason
}

describe('delegated-spl verify', () => {
  it('accepts a delegated payer and names them', async () => {
    expect(await verify(d, await splBody(payer, req()))).toEqual({ isValid: true, payer: payer.publicKey.toBase58() })
  })

  it('rejects a signature by another key and a tampered message', async () => {
    expect(await reasonOf(await splBody(payer, req(), { signer: Keypair.generate() }))).toBe(
      'invalid_delegated_spl_signature',
    )
    const tampered = await splBody(payer, req())
    ;(tampered.paymentPayload.payload as any).authorization.value = String(PRICE * 2n)
    expect(await reasonOf(tampered)).toBe('invalid_delegated_spl_signature')
  })

  it('rejects the wrong recipient and an amount short of the price', async () => {
    expect(await reasonOf(await splBody(payer, req(), { to: Keypair.generate().publicKey.toBase58() }))).toBe(
      'invalid_delegated_spl_recipient_mismatch',
    )
    expect(await reasonOf(await splBody(payer, req(), { value: PRICE - 1n }))).toBe(
      'invalid_delegated_spl_amount_mismatch',
    )
  })

  it('rejects an expired, a too distant and a not yet valid deadline', async () => {
    expect(await reasonOf(await splBody(payer, req(), { validBefore: nowSeconds() - 5n }))).toBe(
      'invalid_delegated_spl_deadline',
    )
    expect(await reasonOf(await splBody(payer, req(), { validBefore: nowSeconds() + 86_400n }))).toBe(
      'invalid_delegated_spl_deadline',
    )
    expect(await reasonOf(await splBody(payer, req(), { validAfter: nowSeconds() + 600n }))).toBe(
      'invalid_delegated_spl_not_yet_valid',
    )
  })

  it('rejects a payer who never delegated, delegated too little, or holds too little', async () => {
    const s = localSolana(d)
    const fresh = await solanaPayer(d, 'USDC', '100')
    expect(await reasonOf(await splBody(fresh, req()))).toBe('invalid_delegated_spl_delegate_mismatch')
    await s.approve(fresh, 'USDC', PRICE - 1n)
    expect(await reasonOf(await splBody(fresh, req()))).toBe('invalid_delegated_spl_delegated_amount_insufficient')
    await s.approve(fresh, 'USDC', PRICE, Keypair.generate().publicKey)
    expect(await reasonOf(await splBody(fresh, req()))).toBe('invalid_delegated_spl_delegate_mismatch')
    const poor = await solanaPayer(d, 'USDC', '1')
    await s.approve(poor, 'USDC', PRICE)
    expect(await reasonOf(await splBody(poor, req()))).toBe('invalid_delegated_spl_insufficient_balance')
    const none = await solanaPayer(d, 'PUSD', '1')
    expect(await reasonOf(await splBody(none, req()))).toBe('invalid_delegated_spl_token_account')
  })

  it('rejects malformed payloads', async () => {
    const body = await splBody(payer, req())
    ;(body.paymentPayload.payload as any).signature = 'not base58 !'
    expect(await reasonOf(body)).toBe('invalid_payload')
    const noNonce = await splBody(payer, req())
    delete (noNonce.paymentPayload.payload as any).authorization.nonce
    expect(await reasonOf(noNonce)).toBe('invalid_payload')
  })
})

describe('the reference exact transaction', () => {
  /** Built as @x402/svm's client builds it: compute limit, compute price, TransferChecked; the facilitator pays the fee. */
  async function referenceBody(
    o: { authority?: Keypair; amount?: bigint; unsigned?: boolean } = {},
  ): Promise<X402Body> {
    const s = localSolana(d)
    const m = s.mint('USDC')
    const r = solRequirements(d, { symbol: 'USDC', amount: PRICE, payTo: seller.toBase58(), method: 'transaction' })
    delete r.extra.assetTransferMethod
    const owner = o.authority ?? payer
    const ixs = [
      ComputeBudgetProgram.setComputeUnitLimit({ units: 20_000 }),
      ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 1 }),
      createTransferCheckedInstruction(
        getAssociatedTokenAddressSync(m.mint, owner.publicKey, true),
        m.mint,
        getAssociatedTokenAddressSync(m.mint, seller, true),
        owner.publicKey,
        o.amount ?? PRICE,
        m.decimals,
      ),
    ]
    const { blockhash } = await s.connection.getLatestBlockhash()
    const tx = new VersionedTransaction(
      new TransactionMessage({
        payerKey: s.facilitator,
        recentBlockhash: blockhash,
        instructions: ixs,
      }).compileToV0Message(),
    )
    if (!o.unsigned) tx.sign([owner])
    return {
      x402Version: 2,
      paymentPayload: {
        x402Version: 2,
        accepted: r,
        payload: { transaction: Buffer.from(tx.serialize()).toString('base64') },
      },
      paymentRequirements: r,
    }
  }

  it('verifies, co-signs and submits it once', async () => {
    const s = localSolana(d)
    await d.call('/api/local/faucet', {
      body: { network: d.services.solana.key, to: seller.toBase58(), token: 'USDC', amount: '0.000001' },
    })
    const body = await referenceBody()
    expect(await verify(d, body)).toEqual({ isValid: true, payer: payer.publicKey.toBase58() })
    const before = await s.balance('USDC', seller)
    const out = await settle(d, body)
    expect(out).toMatchObject({ status: 200, body: { success: true, payer: payer.publicKey.toBase58() } })
    expect((await settle(d, body)).body.errorReason).toBe('duplicate_settlement')
    expect((await s.balance('USDC', seller)) - before).toBe(PRICE)
  })

  it('refuses a transfer the facilitator itself would authorise, or of the wrong amount', async () => {
    expect(await reasonOf(await referenceBody({ amount: PRICE - 1n }))).toBe(
      'invalid_exact_svm_payload_amount_mismatch',
    )
    expect(await reasonOf(await referenceBody({ unsigned: true }))).toBe('invalid_exact_svm_payload_signature_invalid')
    const garbage = await referenceBody()
    ;(garbage.paymentPayload.payload as any).transaction = 'AAAA'
    expect(await reasonOf(garbage)).toBe('invalid_exact_svm_payload_transaction_could_not_be_decoded')
    const stolen = await referenceBodyWithAuthority(d.services.accounts.solanaFacilitator)
    expect(await reasonOf(stolen)).toBe('invalid_exact_svm_payload_transaction_fee_payer_transferring_funds')
  })

  /** A transfer whose authority is the facilitator: as SPL delegate of payers it could sign such a theft. */
  async function referenceBodyWithAuthority(authority: string): Promise<X402Body> {
    const s = localSolana(d)
    const m = s.mint('USDC')
    const body = await referenceBody()
    const r = body.paymentRequirements
    const ixs = [
      ComputeBudgetProgram.setComputeUnitLimit({ units: 20_000 }),
      ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 1 }),
      createTransferCheckedInstruction(
        getAssociatedTokenAddressSync(m.mint, payer.publicKey, true),
        m.mint,
        getAssociatedTokenAddressSync(m.mint, seller, true),
        new PublicKey(authority),
        PRICE,
        m.decimals,
      ),
    ]
    const { blockhash } = await s.connection.getLatestBlockhash()
    const tx = new VersionedTransaction(
      new TransactionMessage({
        payerKey: s.facilitator,
        recentBlockhash: blockhash,
        instructions: ixs,
      }).compileToV0Message(),
    )
    return {
      ...body,
      paymentPayload: {
        x402Version: 2,
        accepted: r,
        payload: { transaction: Buffer.from(tx.serialize()).toString('base64') },
      },
    }
  }
})
