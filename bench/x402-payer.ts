import { type Address, type Hex, keccak256, toHex } from 'viem'
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'
import { transferWithAuthorizationTypedData } from '../src/sdk/x402/evm/typed-data.js'
import type { PaymentRequirements } from '../src/sdk/x402/types.js'

/** What both facilitators are asked to verify and settle: the same eip3009 payment a stock x402 client sends. */
export type Request = { x402Version: 2; paymentPayload: unknown; paymentRequirements: PaymentRequirements }

export type UsdcKind = { network: string; asset: Address; name: string; version: string; chainId: number }

let counter = 0

/** A payer with its own key; each call signs a fresh EIP-3009 authorization, as @x402/evm's client does. */
export function payer(usdc: UsdcKind, payTo: Address, amount: bigint) {
  const account: PrivateKeyAccount = privateKeyToAccount(generatePrivateKey())
  const requirements: PaymentRequirements = {
    scheme: 'exact',
    network: usdc.network,
    asset: usdc.asset,
    amount: amount.toString(),
    payTo,
    maxTimeoutSeconds: 300,
    extra: { name: usdc.name, version: usdc.version },
  }
  return {
    address: account.address,
    async sign(): Promise<Request> {
      const now = BigInt(Math.floor(Date.now() / 1000))
      const auth = {
        from: account.address,
        to: payTo,
        value: amount,
        validAfter: 0n,
        validBefore: now + 300n,
        nonce: keccak256(toHex(`bench ${process.pid} ${counter++} ${Math.random()}`)) as Hex,
      }
      const domain = { name: usdc.name, version: usdc.version, chainId: usdc.chainId, verifyingContract: usdc.asset }
      const signature = await account.signTypedData(transferWithAuthorizationTypedData(domain, auth))
      const authorization = {
        from: auth.from,
        to: auth.to,
        value: auth.value.toString(),
        validAfter: '0',
        validBefore: auth.validBefore.toString(),
        nonce: auth.nonce,
      }
      return {
        x402Version: 2,
        paymentPayload: { x402Version: 2, accepted: requirements, payload: { signature, authorization } },
        paymentRequirements: requirements,
      }
    },
  }
}
