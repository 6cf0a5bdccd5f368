import { Keypair } from '@solana/web3.js'
import { x402Facilitator } from '@x402/core/facilitator'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ParxEvmFacilitatorScheme } from '../src/sdk/x402/plugins/evm-facilitator.js'
import { ParxSvmFacilitatorScheme } from '../src/sdk/x402/plugins/svm-facilitator.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import {
  eip3009Body,
  erc2612Body,
  evmPayer,
  localBase,
  localSolana,
  randomAddress,
  requirements,
  solanaPayer,
  solRequirements,
  splBody,
} from './helpers/x402.js'

let d: TestDaemon
let facilitator: x402Facilitator
const evmKey = privateKeyToAccount(generatePrivateKey())
const svmKey = Keypair.generate()

beforeAll(async () => {
  d = await startTestDaemon()
  const b = localBase(d)
  await d.call('/api/local/faucet', { body: { to: evmKey.address, token: 'ETH', amount: '10' } })
  await d.call('/api/local/faucet', {
    body: { network: d.services.solana.key, to: svmKey.publicKey.toBase58(), token: 'SOL', amount: '5' },
  })
  // A facilitator someone runs on @x402/core alone, with parx's schemes and its own keys.
  facilitator = new x402Facilitator()
    .register(
      b.caip2 as `${string}:${string}`,
      new ParxEvmFacilitatorScheme({ account: evmKey, clients: [b.chain.client] }),
    )
    .register(
      localSolana(d).caip2 as `${string}:${string}`,
      new ParxSvmFacilitatorScheme({ signer: svmKey, connection: localSolana(d).connection, pollMs: 5 }),
    )
})
afterAll(async () => d?.close())

describe('parx schemes inside @x402/core x402Facilitator', () => {
  it('advertises erc2612 and delegated-spl with their signers', () => {
    const s = facilitator.getSupported()
    expect(s.kinds.map((k) => k.extra?.assetTransferMethod).sort()).toEqual(['delegated-spl', 'erc2612'])
    expect(s.signers).toEqual({ 'eip155:*': [evmKey.address], 'solana:*': [svmKey.publicKey.toBase58()] })
  })

  it('verifies and settles erc2612 (permit + transferFrom in one transaction, the facilitator paying gas) and eip3009', async () => {
    const payer = await evmPayer(d, ['PUSD', 'USDC'], '10')
    const seller = randomAddress()
    const b = localBase(d)
    const r = requirements(d, { symbol: 'PUSD', amount: '1', payTo: seller, method: 'erc2612' })
    const body = await erc2612Body(d, payer, r, { spender: evmKey.address })
    expect(await facilitator.verify(body.paymentPayload as never, r as never)).toEqual({
      isValid: true,
      payer: payer.address,
    })
    const out = await facilitator.settle(body.paymentPayload as never, r as never)
    expect(out).toMatchObject({ success: true, payer: payer.address })
    const receipt = await b.chain.client.getTransactionReceipt({ hash: out.transaction as `0x${string}` })
    expect(receipt.from.toLowerCase()).toBe(evmKey.address.toLowerCase())
    expect(await b.balance('PUSD', seller)).toBe(BigInt(r.amount))
    expect((await facilitator.settle(body.paymentPayload as never, r as never)).errorReason).toBe(
      'invalid_exact_evm_nonce_already_used',
    )

    const r3009 = requirements(d, { symbol: 'USDC', amount: '1', payTo: seller, method: 'eip3009' })
    const b3009 = await eip3009Body(d, payer, r3009)
    expect((await facilitator.settle(b3009.paymentPayload as never, r3009 as never)).success).toBe(true)
    expect(await b.balance('USDC', seller)).toBe(BigInt(r3009.amount))
  })

  it('verifies and settles delegated-spl with its own key as delegate, once', async () => {
    const s = localSolana(d)
    const payer = await solanaPayer(d, 'USDC', '10')
    await s.approve(payer, 'USDC', 5_000_000n, svmKey.publicKey)
    const seller = Keypair.generate().publicKey
    const r = solRequirements(d, { symbol: 'USDC', amount: 1_000_000n, payTo: seller.toBase58() })
    const body = await splBody(payer, r)
    expect(await facilitator.verify(body.paymentPayload as never, r as never)).toEqual({
      isValid: true,
      payer: payer.publicKey.toBase58(),
    })
    expect((await facilitator.settle(body.paymentPayload as never, r as never)).success).toBe(true)
    expect((await facilitator.settle(body.paymentPayload as never, r as never)).errorReason).toBe(
      'duplicate_settlement',
    )
    expect(await s.balance('USDC', seller)).toBe(1_000_000n)
  })
})
