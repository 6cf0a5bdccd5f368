import express from 'express'
import {
  type Address,
  createWalletClient,
  type Hex,
  http,
  maxUint256,
  parseEther,
  serializeErc6492Signature,
} from 'viem'
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAccountData, ownedWalletFactory, ownedWalletFactoryAbi } from '../contracts/evm/testing/owned-wallet.js'
import { SIMPLE_7702_ACCOUNT } from '../daemon/buyer/aa/canonical.js'
import { createPlatformClient, type PlatformClient } from '../src/sdk/platform/client.js'
import { PERMIT2_ADDRESS, permit2TypedData, X402_EXACT_PERMIT2_PROXY } from '../src/sdk/x402/evm/permit2.js'
import { permitTypedData } from '../src/sdk/x402/evm/typed-data.js'
import { paymentGate } from '../src/sdk/x402/seller/middleware.js'
import type { PaymentRequirements } from '../src/sdk/x402/types.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import {
  eip3009Body,
  erc2612Body,
  localBase,
  nowSeconds,
  randomAddress,
  requirements,
  settle,
  verify,
  type X402Body,
} from './helpers/x402.js'
import { listen } from './helpers/x402-buyers.js'

/**
 * Smart-wallet payers at the facilitator: the platform's agent wallets (EOAs delegating to
 * Simple7702Account with EIP-7702), a deployed ERC-1271 contract wallet, and counterfactual ones
 * (ERC-6492) from an allow-listed factory and from one that is not. Each valid payment settles on
 * the real token (whose permit and transferWithAuthorization ask the wallet), each bad one is
 * refused at verify with a clear reason, and nothing moves for it.
 */
let d: TestDaemon
let user: PlatformClient
let seller: { url: string; close(): Promise<void> }
const payTo = randomAddress()
const allowed = ownedWalletFactory('parx test wallet factory (allow-listed)')
const stranger = ownedWalletFactory('parx test wallet factory (not allow-listed)')

beforeAll(async () => {
  d = await startTestDaemon({ file: { facilitator: { eip6492Factories: [allowed.address] } } })
  // Both factories exist on chain; only one is trusted to deploy payers' wallets.
  const chain = localBase(d).chain
  const deployer = privateKeyToAccount(generatePrivateKey())
  await chain.client.request({
    method: 'anvil_setBalance' as never,
    params: [deployer.address, `0x${parseEther('1').toString(16)}`] as never,
  })
  const wallet = createWalletClient({ account: deployer, chain: chain.client.chain, transport: http(chain.rpcUrl) })
  for (const f of [allowed, stranger]) {
    const hash = await wallet.sendTransaction({ ...f.deployTx, chain: chain.client.chain, gas: 3_000_000n })
    await chain.client.waitForTransactionReceipt({ hash, pollingInterval: 20 })
    expect(await chain.client.getCode({ address: f.address })).not.toBe('0x')
  }
  const op = createPlatformClient({ url: d.urls.platform, operatorToken: d.services.keys.operatorToken })
  const { userKey } = await op.createUser({ body: { name: 'wallets' } })
  user = createPlatformClient({ url: d.urls.platform, userKey })
  const app = express()
  app.use(
    paymentGate({
      facilitator: { url: d.urls.facilitator },
      routes: {
        'GET /pusd': { prices: [{ network: 'local-base', asset: 'PUSD', amount: String(10n ** 16n), payTo }] },
        'GET /usdc': { prices: [{ network: 'local-base', asset: 'USDC', amount: '10000', payTo, method: 'eip3009' }] },
      },
    }),
  )
  app.get('/pusd', (_req, res) => void res.json({ data: 'pusd' }))
  app.get('/usdc', (_req, res) => void res.json({ data: 'usdc' }))
  seller = await listen(app)
}, 120_000)
afterAll(async () => {
  await seller?.close()
  await d?.close()
})

const bal = (symbol: string, who: Address) => localBase(d).balance(symbol, who)
const code = (who: Address) =>
  localBase(d)
    .chain.client.getCode({ address: who })
    .then((c) => c ?? '0x')
const fund = async (who: Address) => {
  for (const token of ['USDC', 'PUSD'])
    await d.call('/api/local/faucet', { body: { network: 'local-base', to: who, token, amount: '1' } })
}
const usdcReq = () => requirements(d, { symbol: 'USDC', amount: '0.01', payTo, method: 'eip3009' })
const pusdReq = () => requirements(d, { symbol: 'PUSD', amount: '0.01', payTo, method: 'erc2612' })

/** A wallet's address and a signer that signs for it with its owner's key (as SimpleAccount-style wallets do). */
async function ownedWallet(factory: Address, salt: bigint) {
  const owner = privateKeyToAccount(generatePrivateKey())
  const address = await localBase(d).chain.client.readContract({
    address: factory,
    abi: ownedWalletFactoryAbi,
    functionName: 'getAddress',
    args: [owner.address, salt],
  })
  // Signs as the wallet: `from` is the wallet, the signature its owner's.
  const signer = { ...owner, address } as PrivateKeyAccount
  return { owner, address, signer, deployData: createAccountData(owner.address, salt) }
}

/** The body with its signature wrapped in ERC-6492 (factory, calldata), as a counterfactual wallet sends it. */
function wrap6492(body: X402Body, factory: Address, data: Hex): X402Body {
  const b = structuredClone(body)
  const p = (b.paymentPayload as { payload: { signature: Hex } }).payload
  p.signature = serializeErc6492Signature({ address: factory, data, signature: p.signature })
  return b
}

/** A permit2 payment with the eip2612GasSponsoring extension, as @x402/evm builds it, signed by `payer`. */
async function permit2Sponsored(payer: PrivateKeyAccount, r: PaymentRequirements): Promise<X402Body> {
  const b = localBase(d)
  const a = {
    token: r.asset as Address,
    amount: BigInt(r.amount),
    spender: X402_EXACT_PERMIT2_PROXY,
    nonce: BigInt(Math.floor(Math.random() * 2 ** 48)),
    deadline: nowSeconds() + 120n,
    to: r.payTo as Address,
    validAfter: 0n,
  }
  const signature = await payer.signTypedData(permit2TypedData(b.chain.chainId, a))
  const t = b.token('PUSD')
  const deadline = nowSeconds() + 120n
  const nonce = await b.permitNonce('PUSD', payer.address)
  const permitSig = await payer.signTypedData(
    permitTypedData(
      { name: t.name, version: t.version, chainId: b.chain.chainId, verifyingContract: t.address },
      { owner: payer.address, spender: PERMIT2_ADDRESS, value: maxUint256, nonce, deadline },
    ) as never,
  )
  const info = {
    from: payer.address,
    asset: t.address,
    spender: PERMIT2_ADDRESS,
    amount: maxUint256.toString(),
    nonce: nonce.toString(),
    deadline: deadline.toString(),
    signature: permitSig,
    version: '1',
  }
  const permit2Authorization = {
    from: payer.address,
    permitted: { token: a.token, amount: a.amount.toString() },
    spender: a.spender,
    nonce: a.nonce.toString(),
    deadline: a.deadline.toString(),
    witness: { to: a.to, validAfter: '0' },
  }
  return {
    x402Version: 2,
    paymentPayload: {
      x402Version: 2,
      accepted: r,
      payload: { signature, permit2Authorization },
      extensions: { eip2612GasSponsoring: { info, schema: {} } },
    },
    paymentRequirements: r,
  }
}

describe("EIP-7702 payers: the platform's agent wallets", () => {
  it('an agent whose wallet delegates to Simple7702Account pays erc2612 and eip3009 sellers; balances exact', async () => {
    const a = await user.createAgent({ body: { name: 'buyer', network: 'local-base' } })
    await fund(a.wallet)
    const { agentKey } = await user.createAgentKey({ params: { id: a.id }, body: {} })
    const agent = createPlatformClient({ url: d.urls.platform, agentKey })
    // A sponsored send makes the wallet an EIP-7702 account (code 0xef0100 || Simple7702Account).
    await agent.send({ params: { id: a.id }, body: { to: randomAddress(), amount: '0.1', token: 'PUSD' } })
    expect((await code(a.wallet as Address)).toLowerCase()).toBe(
      `0xef0100${SIMPLE_7702_ACCOUNT.slice(2).toLowerCase()}`,
    )
    const [pusd, usdc] = [await bal('PUSD', payTo), await bal('USDC', payTo)]
    for (const path of ['pusd', 'usdc']) {
      const r = await agent.pay({ params: { id: a.id }, body: { url: `${seller.url}/${path}` } })
      if (r.dryRun) throw new Error('not a dry run')
      expect(r.status, r.body).toBe(200)
      expect(r.receipt).toMatchObject({ payer: a.wallet, payTo })
    }
    expect(await bal('PUSD', payTo)).toBe(pusd + 10n ** 16n)
    expect(await bal('USDC', payTo)).toBe(usdc + 10_000n)
  }, 60_000)

  it('a signature for a 7702 account by another key is invalid, named as such', async () => {
    const a = await user.createAgent({ body: { name: 'victim', network: 'local-base' } })
    await fund(a.wallet)
    const impostor = privateKeyToAccount(generatePrivateKey())
    // Make it delegated without the platform: what counts is its code.
    await localBase(d).chain.client.request({
      method: 'anvil_setCode' as never,
      params: [a.wallet, `0xef0100${SIMPLE_7702_ACCOUNT.slice(2)}`] as never,
    })
    const body = await eip3009Body(d, impostor, usdcReq(), { from: a.wallet as Address })
    const v = await verify(d, body)
    expect(v).toMatchObject({ isValid: false, invalidReason: 'invalid_exact_evm_signature', payer: a.wallet })
    expect(v.invalidMessage).toContain(`recovers to ${impostor.address}`)
  })
})

describe('ERC-1271 payers: a deployed contract wallet', () => {
  it("pays eip3009 and erc2612 with its owner's signature, which the token checks with isValidSignature", async () => {
    const w = await ownedWallet(allowed.address, 1n)
    const chain = localBase(d).chain
    const deployer = privateKeyToAccount(generatePrivateKey())
    await chain.client.request({
      method: 'anvil_setBalance' as never,
      params: [deployer.address, `0x${parseEther('1').toString(16)}`] as never,
    })
    const wallet = createWalletClient({ account: deployer, chain: chain.client.chain, transport: http(chain.rpcUrl) })
    const hash = await wallet.sendTransaction({ to: allowed.address, data: w.deployData, chain: chain.client.chain })
    await chain.client.waitForTransactionReceipt({ hash, pollingInterval: 20 })
    expect(await code(w.address)).not.toBe('0x')
    await fund(w.address)
    const [usdc, pusd] = [await bal('USDC', payTo), await bal('PUSD', payTo)]
    for (const body of [await eip3009Body(d, w.signer, usdcReq()), await erc2612Body(d, w.signer, pusdReq())]) {
      expect(await verify(d, body)).toEqual({ isValid: true, payer: w.address })
      expect((await settle(d, body)).body).toMatchObject({ success: true, payer: w.address })
    }
    expect(await bal('USDC', payTo)).toBe(usdc + 10_000n)
    expect(await bal('PUSD', payTo)).toBe(pusd + 10n ** 16n)
  })

  it('pays permit2 too (Permit2 asks the wallet; its allowance comes from an EIP-2612 permit the wallet signed, sponsored)', async () => {
    const w = await ownedWallet(allowed.address, 6n)
    const body = await permit2Sponsored(
      w.signer,
      requirements(d, { symbol: 'PUSD', amount: '0.01', payTo, method: 'permit2' }),
    )
    // Counterfactual first: the same payment wrapped in ERC-6492, deployed by the settlement.
    await fund(w.address)
    const wrapped = wrap6492(body, allowed.address, w.deployData)
    expect(await verify(d, wrapped)).toEqual({ isValid: true, payer: w.address })
    const before = await bal('PUSD', payTo)
    expect((await settle(d, wrapped)).body).toMatchObject({ success: true, payer: w.address })
    expect(await code(w.address)).not.toBe('0x')
    expect(await bal('PUSD', payTo)).toBe(before + 10n ** 16n)
    // Deployed now, a second one plain: a 65-byte signature that is the owner's, judged by ERC-1271, not ecrecover.
    const again = await permit2Sponsored(
      w.signer,
      requirements(d, { symbol: 'PUSD', amount: '0.01', payTo, method: 'permit2' }),
    )
    expect(await verify(d, again)).toEqual({ isValid: true, payer: w.address })
    expect((await settle(d, again)).body).toMatchObject({ success: true })
    expect(await bal('PUSD', payTo)).toBe(before + 2n * 10n ** 16n)
  })

  it('refuses a signature the wallet rejects, at verify and at settle; nothing moves', async () => {
    const w = await ownedWallet(allowed.address, 2n)
    await localBase(d).chain.client.request({
      method: 'anvil_setBalance' as never,
      params: [w.owner.address, `0x${parseEther('1').toString(16)}`] as never,
    })
    const wallet = createWalletClient({
      account: w.owner,
      chain: localBase(d).chain.client.chain,
      transport: http(localBase(d).chain.rpcUrl),
    })
    await localBase(d).chain.client.waitForTransactionReceipt({
      hash: await wallet.sendTransaction({
        to: allowed.address,
        data: w.deployData,
        chain: localBase(d).chain.client.chain,
      }),
      pollingInterval: 20,
    })
    await fund(w.address)
    const before = await bal('USDC', w.address)
    const forged = await eip3009Body(d, w.signer, usdcReq(), { signer: privateKeyToAccount(generatePrivateKey()) })
    const v = await verify(d, forged)
    expect(v).toMatchObject({ isValid: false, invalidReason: 'invalid_exact_evm_signature', payer: w.address })
    expect(v.invalidMessage).toContain('ERC-1271')
    expect((await settle(d, forged)).body).toMatchObject({ success: false, errorReason: 'invalid_exact_evm_signature' })
    expect(await bal('USDC', w.address)).toBe(before)
  })
})

describe('ERC-6492 payers: counterfactual wallets', () => {
  it('from an allow-listed factory: verified before it exists, deployed and paid in one settlement', async () => {
    const w = await ownedWallet(allowed.address, 3n)
    await fund(w.address)
    expect(await code(w.address)).toBe('0x')
    const body = wrap6492(await eip3009Body(d, w.signer, usdcReq()), allowed.address, w.deployData)
    expect(await verify(d, body)).toEqual({ isValid: true, payer: w.address })
    expect(await code(w.address)).toBe('0x')
    const before = await bal('USDC', payTo)
    expect((await settle(d, body)).body).toMatchObject({ success: true, payer: w.address })
    expect(await code(w.address)).not.toBe('0x')
    expect(await bal('USDC', payTo)).toBe(before + 10_000n)
    // Deployed now: its next payment is a plain ERC-1271 one, even if still wrapped.
    const next = wrap6492(await erc2612Body(d, w.signer, pusdReq()), allowed.address, w.deployData)
    expect((await settle(d, next)).body).toMatchObject({ success: true, payer: w.address })
  })

  it('from a factory not on the allow-list: refused with eip6492_factory_not_allowed, not deployed, nothing moves', async () => {
    const w = await ownedWallet(stranger.address, 4n)
    await fund(w.address)
    const body = wrap6492(await eip3009Body(d, w.signer, usdcReq()), stranger.address, w.deployData)
    const v = await verify(d, body)
    expect(v).toMatchObject({ isValid: false, invalidReason: 'eip6492_factory_not_allowed', payer: w.address })
    expect(v.invalidMessage).toContain(stranger.address)
    expect((await settle(d, body)).body).toMatchObject({ success: false, errorReason: 'eip6492_factory_not_allowed' })
    expect(await code(w.address)).toBe('0x')
    expect(await bal('USDC', w.address)).toBe(1_000_000n)
  })

  it('from an allow-listed factory but signed by another key: invalid, not deployed', async () => {
    const w = await ownedWallet(allowed.address, 5n)
    await fund(w.address)
    const body = wrap6492(
      await eip3009Body(d, w.signer, usdcReq(), { signer: privateKeyToAccount(generatePrivateKey()) }),
      allowed.address,
      w.deployData,
    )
    expect(await verify(d, body)).toMatchObject({ isValid: false, invalidReason: 'invalid_exact_evm_signature' })
    expect(await code(w.address)).toBe('0x')
  })
})
