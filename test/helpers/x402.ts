import { createApproveCheckedInstruction, getAssociatedTokenAddressSync } from '@solana/spl-token'
import { type Connection, Keypair, PublicKey, TransactionMessage, VersionedTransaction } from '@solana/web3.js'
import { HTTPFacilitatorClient } from '@x402/core/server'
import bs58 from 'bs58'
import { type Address, getAddress, type Hex, keccak256, parseUnits, toHex } from 'viem'
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'
import { tokenAbi } from '../../src/sdk/x402/evm/calls.js'
import { permitTypedData, transferWithAuthorizationTypedData } from '../../src/sdk/x402/evm/typed-data.js'
import { keypairSigner, newSplNonce, splMessage } from '../../src/sdk/x402/svm/delegated-spl.js'
import type { PaymentRequirements, SettleResponse, VerifyResponse } from '../../src/sdk/x402/types.js'
import type { TestDaemon } from './daemon.js'

/** The body of /verify and /settle. */
export type X402Body = {
  x402Version?: number
  paymentPayload: Record<string, unknown>
  paymentRequirements: Record<string, unknown>
}

export const post = (d: TestDaemon, op: 'verify' | 'settle', body: unknown, headers: Record<string, string> = {}) =>
  d.raw(`/facilitator/${op}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  })

export async function verify(d: TestDaemon, body: X402Body): Promise<VerifyResponse> {
  const r = await post(d, 'verify', body)
  if (r.status !== 200) throw new Error(`/verify answered ${r.status}: ${JSON.stringify(r.body)}`)
  return r.body as VerifyResponse
}

export async function settle(d: TestDaemon, body: X402Body): Promise<{ status: number; body: SettleResponse }> {
  const r = await post(d, 'settle', body)
  return { status: r.status, body: r.body as SettleResponse }
}

export const nowSeconds = () => BigInt(Math.floor(Date.now() / 1000))

/** The local-base view a payment test needs: token addresses, domains and a balance reader. */
export function localBase(d: TestDaemon) {
  const chain = d.services.base
  const token = (symbol: string) => {
    const t = chain.tokens[symbol]!
    return { address: t.address, decimals: t.decimals, name: t.permitDomain!.name, version: t.permitDomain!.version }
  }
  return {
    chain,
    caip2: chain.spec.caip2,
    legacy: chain.spec.legacyName,
    token,
    balance: (symbol: string, owner: Address) =>
      chain.client.readContract({
        address: chain.tokens[symbol]!.address,
        abi: tokenAbi,
        functionName: 'balanceOf',
        args: [owner],
      }),
    permitNonce: (symbol: string, owner: Address) =>
      chain.client.readContract({
        address: chain.tokens[symbol]!.address,
        abi: tokenAbi,
        functionName: 'nonces',
        args: [owner],
      }),
  }
}

/** A fresh EVM payer holding `amount` of each symbol (faucet). */
export async function evmPayer(d: TestDaemon, symbols: string[], amount = '1000'): Promise<PrivateKeyAccount> {
  const account = privateKeyToAccount(generatePrivateKey())
  for (const token of symbols) await d.call('/api/local/faucet', { body: { to: account.address, token, amount } })
  return account
}

export const randomAddress = (): Address => privateKeyToAccount(generatePrivateKey()).address

export function requirements(
  d: TestDaemon,
  o: { symbol: string; amount: string; payTo: Address; method?: string; maxTimeoutSeconds?: number },
): PaymentRequirements {
  const b = localBase(d)
  const t = b.token(o.symbol)
  return {
    scheme: 'exact',
    network: b.caip2,
    asset: t.address,
    amount: parseUnits(o.amount, t.decimals).toString(),
    payTo: o.payTo,
    maxTimeoutSeconds: o.maxTimeoutSeconds ?? 120,
    extra: { name: t.name, version: t.version, ...(o.method ? { assetTransferMethod: o.method } : {}) },
  }
}

type AuthOverrides = Partial<{
  from: Address
  to: Address
  value: bigint
  validAfter: bigint
  validBefore: bigint
  nonce: Hex | bigint
  spender: Address
  signer: PrivateKeyAccount
  domainName: string
}>

/** An eip3009 payment for `r`, signed as the reference client signs it; `o` bends one field for failure tests. */
export async function eip3009Body(
  d: TestDaemon,
  payer: PrivateKeyAccount,
  r: PaymentRequirements,
  o: AuthOverrides = {},
): Promise<X402Body> {
  const a = {
    from: o.from ?? payer.address,
    to: o.to ?? getAddress(r.payTo),
    value: o.value ?? BigInt(r.amount),
    validAfter: o.validAfter ?? 0n,
    validBefore: o.validBefore ?? nowSeconds() + 120n,
    nonce: (o.nonce as Hex | undefined) ?? keccak256(toHex(`${Math.random()}`)),
  }
  const domain = {
    name: o.domainName ?? String(r.extra.name),
    version: String(r.extra.version),
    chainId: localBase(d).chain.chainId,
    verifyingContract: getAddress(r.asset),
  }
  const signature = await (o.signer ?? payer).signTypedData(transferWithAuthorizationTypedData(domain, a))
  const authorization = {
    from: a.from,
    to: a.to,
    value: a.value.toString(),
    validAfter: a.validAfter.toString(),
    validBefore: a.validBefore.toString(),
    nonce: a.nonce,
  }
  return {
    x402Version: 2,
    paymentPayload: { x402Version: 2, accepted: r, payload: { signature, authorization } },
    paymentRequirements: r,
  }
}

/** An erc2612 payment for `r`: a permit to the facilitator's signer at the token's current nonce. */
export async function erc2612Body(
  d: TestDaemon,
  payer: PrivateKeyAccount,
  r: PaymentRequirements,
  o: AuthOverrides = {},
): Promise<X402Body> {
  const b = localBase(d)
  const symbol = Object.values(b.chain.tokens).find((t) => t.address.toLowerCase() === r.asset.toLowerCase())!.symbol
  const spender = o.spender ?? d.services.accounts.facilitator
  const nonce = (o.nonce as bigint | undefined) ?? (await b.permitNonce(symbol, payer.address))
  const value = o.value ?? BigInt(r.amount)
  const deadline = o.validBefore ?? nowSeconds() + 120n
  const domain = {
    name: o.domainName ?? String(r.extra.name),
    version: String(r.extra.version),
    chainId: b.chain.chainId,
    verifyingContract: getAddress(r.asset),
  }
  const signature = await (o.signer ?? payer).signTypedData(
    permitTypedData(domain, { owner: o.from ?? payer.address, spender, value, nonce, deadline }),
  )
  const authorization = {
    from: o.from ?? payer.address,
    to: o.to ?? getAddress(r.payTo),
    value: value.toString(),
    validAfter: (o.validAfter ?? 0n).toString(),
    validBefore: deadline.toString(),
    nonce: nonce.toString(),
    ...(o.spender ? { spender: o.spender } : {}),
  }
  return {
    x402Version: 2,
    paymentPayload: { x402Version: 2, accepted: r, payload: { signature, authorization } },
    paymentRequirements: r,
  }
}

/** The same payment as x402 v1 sends it: legacy network name, `maxAmountRequired`, no `accepted`. */
export function asV1(body: X402Body, legacy: string): X402Body {
  const r = body.paymentRequirements as unknown as PaymentRequirements
  const p = body.paymentPayload as { scheme?: string; payload: unknown }
  return {
    x402Version: 1,
    paymentPayload: { x402Version: 1, scheme: 'exact', network: legacy, payload: p.payload },
    paymentRequirements: {
      scheme: 'exact',
      network: legacy,
      maxAmountRequired: r.amount,
      resource: 'http://seller.test/x',
      description: '',
      mimeType: '',
      payTo: r.payTo,
      maxTimeoutSeconds: r.maxTimeoutSeconds,
      asset: r.asset,
      extra: r.extra,
    },
  }
}

/** The local-solana view: the facilitator's signer, mints, a connection, balances, and delegate approval. */
export function localSolana(d: TestDaemon) {
  const chain = d.services.solana
  const connection: Connection = chain.connection
  const mint = (symbol: string) => chain.mints[symbol]!
  return {
    chain,
    connection,
    caip2: chain.spec.caip2,
    legacy: chain.spec.legacyName,
    mint,
    facilitator: new PublicKey(d.services.accounts.solanaFacilitator),
    async balance(symbol: string, owner: PublicKey): Promise<bigint> {
      const ata = getAssociatedTokenAddressSync(mint(symbol).mint, owner, true)
      const info = await connection.getTokenAccountBalance(ata).catch(() => undefined)
      return BigInt(info?.value.amount ?? '0')
    },
    /** The one-time setup of a delegated-spl payer: approve the facilitator's signer as delegate. */
    async approve(
      payer: Keypair,
      symbol: string,
      amount: bigint,
      delegate = new PublicKey(d.services.accounts.solanaFacilitator),
    ) {
      const m = mint(symbol)
      const ata = getAssociatedTokenAddressSync(m.mint, payer.publicKey, true)
      const ix = createApproveCheckedInstruction(ata, m.mint, delegate, payer.publicKey, amount, m.decimals)
      const { blockhash } = await connection.getLatestBlockhash()
      const tx = new VersionedTransaction(
        new TransactionMessage({
          payerKey: payer.publicKey,
          recentBlockhash: blockhash,
          instructions: [ix],
        }).compileToV0Message(),
      )
      tx.sign([payer])
      const sig = await connection.sendRawTransaction(tx.serialize())
      await waitSignature(connection, sig)
    },
  }
}

export async function waitSignature(connection: Connection, sig: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const st = (await connection.getSignatureStatuses([sig])).value[0]
    if (st?.err) throw new Error(`transaction ${sig} failed: ${JSON.stringify(st.err)}`)
    if (st?.confirmationStatus) return
    await new Promise((r) => setTimeout(r, 10))
  }
  throw new Error(`transaction ${sig} did not confirm`)
}

/** A funded Solana payer (SOL for fees, `amount` of `symbol`). */
export async function solanaPayer(d: TestDaemon, symbol: string, amount = '100'): Promise<Keypair> {
  const kp = Keypair.generate()
  const network = d.services.solana.key
  await d.call('/api/local/faucet', { body: { network, to: kp.publicKey.toBase58(), token: 'SOL', amount: '1' } })
  await d.call('/api/local/faucet', { body: { network, to: kp.publicKey.toBase58(), token: symbol, amount } })
  return kp
}

export function solRequirements(
  d: TestDaemon,
  o: { symbol: string; amount: bigint; payTo: string; maxTimeoutSeconds?: number; method?: string },
): PaymentRequirements {
  const s = localSolana(d)
  return {
    scheme: 'exact',
    network: s.caip2,
    asset: s.mint(o.symbol).mint.toBase58(),
    amount: o.amount.toString(),
    payTo: o.payTo,
    maxTimeoutSeconds: o.maxTimeoutSeconds ?? 120,
    extra: { assetTransferMethod: o.method ?? 'delegated-spl', feePayer: d.services.accounts.solanaFacilitator },
  }
}

/** A delegated-spl payment for `r`, signed by `o.signer ?? payer` over the fields given (defaults: the price, now + timeout). */
export async function splBody(
  payer: Keypair,
  r: PaymentRequirements,
  o: Partial<{
    to: string
    value: bigint
    nonce: string
    validBefore: bigint
    validAfter: bigint
    signer: Keypair
  }> = {},
): Promise<X402Body> {
  const authorization = {
    from: payer.publicKey.toBase58(),
    to: o.to ?? r.payTo,
    value: String(o.value ?? r.amount),
    validAfter: String(o.validAfter ?? 0n),
    validBefore: String(o.validBefore ?? nowSeconds() + BigInt(r.maxTimeoutSeconds)),
    nonce: o.nonce ?? newSplNonce(),
  }
  const sig = await keypairSigner(o.signer ?? payer).signMessage(
    splMessage({ ...authorization, amount: authorization.value, deadline: authorization.validBefore }),
  )
  return {
    x402Version: 2,
    paymentPayload: { x402Version: 2, accepted: r, payload: { signature: bs58.encode(sig), authorization } },
    paymentRequirements: r,
  }
}

/**
 * The official facilitator client of a seller whose receiver is `receiver`, authenticated with a
 * partner key bound to it (made on first use): what a refund our receiver authorizer signs needs.
 */
export function sellerFacilitator(d: TestDaemon, receiver: Address): HTTPFacilitatorClient {
  let key: Promise<string> | undefined
  return new HTTPFacilitatorClient({
    url: d.urls.facilitator,
    createAuthHeaders: async () => {
      key ??= d
        .call<{ key: string }>('/api/operator/keys', {
          body: { name: 'seller', owner: receiver },
          headers: d.operatorHeaders(),
        })
        .then((r) => r.key)
      const headers = { 'x-api-key': await key }
      return { verify: headers, settle: headers, supported: headers }
    },
  })
}
