import { AuthCaptureEvmScheme } from '@x402/evm/auth-capture/client'
import { type Address, type Hex, keccak256, toHex, zeroAddress } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { AUTH_CAPTURE_V1_0, AUTH_CAPTURE_V1_1, authCaptureDeployment } from './contracts.js'
import { boundSalt, type PaymentInfo, paymentInfoHash, signatureNonce } from './payment-info.js'

const payer = privateKeyToAccount(keccak256(toHex('auth-capture payment-info payer')))
const operator = '0x00000000000000000000000000000000000000a1' as Address
const authorizer = '0x00000000000000000000000000000000000000a2' as Address
const chainId = 84532

/** What the official client signs for these requirements (it only needs the signer's address and signTypedData). */
async function officialPayload(extra: Record<string, unknown> = {}) {
  const req = {
    scheme: 'auth-capture',
    network: `eip155:${chainId}`,
    amount: '1000000',
    asset: '0x00000000000000000000000000000000000000c0',
    payTo: '0x00000000000000000000000000000000000000b0',
    maxTimeoutSeconds: 60,
    extra: {
      name: 'USD Coin',
      version: '2',
      captureAuthorizer: operator,
      feeRecipient: zeroAddress,
      captureDeadline: 2_000_000_000,
      refundDeadline: 2_100_000_000,
      minFeeBps: 0,
      maxFeeBps: 0,
      ...extra,
    },
  }
  const { payload } = await new AuthCaptureEvmScheme({
    address: payer.address,
    signTypedData: (m: unknown) => payer.signTypedData(m as never),
  } as never).createPaymentPayload(2, req as never)
  const p = payload as {
    authorization?: { from: Address; to: Address; validBefore: string; nonce: Hex }
    permit2Authorization?: { spender: Address; nonce: string; deadline: string }
    salt: Hex
    saltNonce?: Hex
  }
  const info: PaymentInfo = {
    operator,
    payer: payer.address,
    receiver: req.payTo as Address,
    token: req.asset as Address,
    maxAmount: 1_000_000n,
    preApprovalExpiry: Number(p.authorization?.validBefore ?? p.permit2Authorization!.deadline),
    authorizationExpiry: 2_000_000_000,
    refundExpiry: 2_100_000_000,
    minFeeBps: 0,
    maxFeeBps: 0,
    feeReceiver: zeroAddress,
    salt: BigInt(p.salt),
  }
  return { payload: p, info }
}

describe('auth-capture hashes agree with the official @x402/evm client', () => {
  it("the ERC-3009 nonce is signatureNonce for the v1.1 escrow by default and for v1.0 when named; the collector is that set's", async () => {
    const v11 = await officialPayload()
    expect(v11.payload.authorization!.nonce).toBe(signatureNonce(v11.info, chainId, AUTH_CAPTURE_V1_1.escrow))
    expect(v11.payload.authorization!.to).toBe(AUTH_CAPTURE_V1_1.eip3009Collector)
    const v10 = await officialPayload({ authCaptureEscrow: AUTH_CAPTURE_V1_0.escrow })
    expect(v10.payload.authorization!.nonce).toBe(signatureNonce(v10.info, chainId, AUTH_CAPTURE_V1_0.escrow))
    expect(v10.payload.authorization!.to).toBe(AUTH_CAPTURE_V1_0.eip3009Collector)
  })

  it('the Permit2 nonce is the same hash as a number, the spender the Permit2 collector', async () => {
    const { payload, info } = await officialPayload({ assetTransferMethod: 'permit2' })
    expect(BigInt(payload.permit2Authorization!.nonce)).toBe(
      BigInt(signatureNonce(info, chainId, AUTH_CAPTURE_V1_1.escrow)),
    )
    expect(payload.permit2Authorization!.spender).toBe(AUTH_CAPTURE_V1_1.permit2Collector)
  })

  it('binds the salt to a receiver authorizer as boundSalt does; no binding without one', async () => {
    const bound = await officialPayload({ receiverAuthorizer: authorizer })
    expect(BigInt(bound.payload.salt)).toBe(boundSalt(authorizer, zeroAddress, BigInt(bound.payload.saltNonce!)))
    expect(bound.payload.authorization!.nonce).toBe(signatureNonce(bound.info, chainId, AUTH_CAPTURE_V1_1.escrow))
    expect((await officialPayload()).payload.saltNonce).toBeUndefined()
  })

  it('the payment id differs from the nonce (payer set), and by chain and escrow', async () => {
    const { info } = await officialPayload()
    const id = paymentInfoHash(info, chainId, AUTH_CAPTURE_V1_1.escrow)
    expect(id).not.toBe(signatureNonce(info, chainId, AUTH_CAPTURE_V1_1.escrow))
    expect(id).not.toBe(paymentInfoHash(info, chainId + 1, AUTH_CAPTURE_V1_1.escrow))
    expect(id).not.toBe(paymentInfoHash(info, chainId, AUTH_CAPTURE_V1_0.escrow))
  })

  it('resolves extra.authCaptureEscrow as the client does: absent is v1.1, either canonical escrow in any case, nothing else', () => {
    expect(authCaptureDeployment(undefined)).toBe(AUTH_CAPTURE_V1_1)
    expect(authCaptureDeployment(AUTH_CAPTURE_V1_0.escrow.toLowerCase())).toBe(AUTH_CAPTURE_V1_0)
    expect(authCaptureDeployment(AUTH_CAPTURE_V1_1.escrow)).toBe(AUTH_CAPTURE_V1_1)
    // The other v1.1 set one version of the spec's table lists: the client refuses it, so do we.
    expect(authCaptureDeployment('0x13AC3b34322D12FE27D5e192D0c2b2266d4F29CB')).toBeUndefined()
  })
})
