import { type Address, getAddress, type Hex, keccak256, toHex } from 'viem'
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'
import { TOKEN_A, USDC } from '../src/networks/registry.js'
import { createSwapClient } from '../src/sdk/swap/index.js'
import { transferWithAuthorizationTypedData } from '../src/sdk/x402/evm/typed-data.js'
import { pool } from '../test/helpers/pool.js'

export { pool }

export type Chains = { faucetUrl: string; usdc: Address; chainId: number; caip2: string }

export const fundedAccounts = async (c: Chains, n: number, amount: string): Promise<PrivateKeyAccount[]> => {
  const accounts = Array.from({ length: n }, () => privateKeyToAccount(generatePrivateKey()))
  await pool(accounts, 10, async (a) => {
    const res = await fetch(c.faucetUrl, {
      method: 'POST',
      body: JSON.stringify({ network: 'base-sepolia', to: a.address, token: USDC, amount }),
    })
    if (res.status !== 200) throw new Error(`faucet answered ${res.status}`)
  })
  return accounts
}

/** One gasless USDC -> PUSD swap of 0.5 through `apiUrl`; resolves with the relayed hash once accepted. */
export async function swapOnce(apiUrl: string, apiKey: string, account: PrivateKeyAccount): Promise<Hex> {
  const r = await createSwapClient({ account, apiUrl, apiKey }).swap({ in: USDC, out: TOKEN_A, amount: '0.5' })
  return r.hash as Hex
}

/** One eip3009 x402 payment of `price` USDC base units settled through `apiUrl`'s facilitator. */
export async function settleOnce(
  apiUrl: string,
  c: Chains,
  payer: PrivateKeyAccount,
  seller: Address,
  price: bigint,
): Promise<{ success: boolean; transaction?: Hex; errorReason?: string }> {
  const requirements = {
    scheme: 'exact',
    network: c.caip2,
    asset: c.usdc,
    amount: price.toString(),
    payTo: seller,
    maxTimeoutSeconds: 120,
    extra: { name: 'USD Coin', version: '2', assetTransferMethod: 'eip3009' },
  }
  const a = {
    from: payer.address,
    to: getAddress(seller),
    value: price,
    validAfter: 0n,
    validBefore: BigInt(Math.floor(Date.now() / 1000) + 600),
    nonce: keccak256(toHex(`${payer.address}:${Math.random()}`)),
  }
  const signature = await payer.signTypedData(
    transferWithAuthorizationTypedData(
      { name: 'USD Coin', version: '2', chainId: c.chainId, verifyingContract: c.usdc },
      a,
    ),
  )
  const authorization = { ...a, value: a.value.toString(), validAfter: '0', validBefore: a.validBefore.toString() }
  const body = {
    x402Version: 2,
    paymentPayload: { x402Version: 2, accepted: requirements, payload: { signature, authorization } },
    paymentRequirements: requirements,
  }
  const res = await fetch(`${apiUrl}/facilitator/settle`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return (await res.json()) as { success: boolean; transaction?: Hex; errorReason?: string }
}
