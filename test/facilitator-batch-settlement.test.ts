import { toClientEvmSigner } from '@x402/evm'
import { createBatchSettlementEIP3009DepositPayload, signVoucher } from '@x402/evm/batch-settlement/client'
import { type Address, createWalletClient, type Hex, http, parseAbi, parseEther, toHex, zeroAddress } from 'viem'
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAccountData, ownedWalletFactory, ownedWalletFactoryAbi } from '../contracts/evm/testing/owned-wallet.js'
import { networks } from '../src/networks/registry.js'
import {
  BATCH_SETTLEMENT_ADDRESS,
  type ChannelConfig,
  channelIdOf,
  depositPermit2WitnessTypes,
  PERMIT2_DEPOSIT_COLLECTOR_ADDRESS,
  voucherTypedData,
} from '../src/sdk/x402/evm/batch-settlement/contracts.js'
import { PERMIT2_ADDRESS } from '../src/sdk/x402/evm/permit2.js'
import { permitTypedData } from '../src/sdk/x402/evm/typed-data.js'
import type { PaymentRequirements } from '../src/sdk/x402/types.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { evmPayer, localBase, nowSeconds, post, randomAddress, settle, verify } from './helpers/x402.js'

/**
 * x402 batch-settlement through our facilitator on the local profile, with payloads built by the
 * official @x402/evm batch-settlement client: a buyer holding USDC and no ETH deposits once,
 * pays 20 requests with vouchers alone, the seller claims two channels in one transaction,
 * settles and refunds; every balance is checked on chain.
 */
let d: TestDaemon
let buyer: PrivateKeyAccount
let authorizer: Address
const payTo = randomAddress()
const channels = parseAbi(['function channels(bytes32) view returns (uint128 balance, uint128 totalClaimed)'])

beforeAll(async () => {
  d = await startTestDaemon()
  buyer = await evmPayer(d, ['USDC'], '10')
})
afterAll(async () => d?.stop())

const usdc = () => localBase(d).token('USDC')
const network = () => localBase(d).caip2 as `${string}:${string}`
const req = (): PaymentRequirements => ({
  scheme: 'batch-settlement',
  network: network(),
  amount: '1000',
  asset: usdc().address,
  payTo,
  maxTimeoutSeconds: 3600,
  extra: { receiverAuthorizer: authorizer, withdrawDelay: 900, name: usdc().name, version: usdc().version },
})
const body = (payload: Record<string, unknown>, r = req()) => ({
  x402Version: 2,
  paymentPayload: { x402Version: 2, accepted: r, payload },
  paymentRequirements: r,
})
const config = (salt: number): ChannelConfig => ({
  payer: buyer.address,
  payerAuthorizer: buyer.address,
  receiver: payTo,
  receiverAuthorizer: authorizer,
  token: usdc().address as Address,
  withdrawDelay: 900,
  salt: toHex(salt, { size: 32 }),
})
const client = () => toClientEvmSigner(buyer, localBase(d).chain.client as never)
const onChain = async (c: ChannelConfig) => {
  const [balance, totalClaimed] = await localBase(d).chain.client.readContract({
    address: BATCH_SETTLEMENT_ADDRESS,
    abi: channels,
    functionName: 'channels',
    args: [channelIdOf(c, localBase(d).chain.chainId)],
  })
  return { balance, totalClaimed }
}
async function deposit(c: ChannelConfig, amount: string, max: string) {
  const r = await createBatchSettlementEIP3009DepositPayload(client(), 2, req() as never, c, amount, max)
  return body(r.payload as Record<string, unknown>)
}
/** A partner key bound to `owner` (`parx keys create --owner`), as a seller authenticates to the facilitator. */
const keyFor = async (owner: Address) =>
  (
    await d.call<{ key: string }>('/api/operator/keys', {
      body: { name: 'seller', owner },
      headers: d.operatorHeaders(),
    })
  ).key
const voucher = async (c: ChannelConfig, max: string, signer?: PrivateKeyAccount) =>
  signVoucher(
    signer ? toClientEvmSigner(signer, localBase(d).chain.client as never) : client(),
    channelIdOf(c, localBase(d).chain.chainId),
    max,
    network(),
  )

describe('batch-settlement through our facilitator', () => {
  const a = () => config(1)
  const b = () => config(2)

  it('is advertised for USDC on the embedded EVM networks with our receiver authorizer', async () => {
    const s = await d.call<{ kinds: Array<{ scheme: string; network: string; extra: Record<string, unknown> }> }>(
      '/facilitator/supported',
    )
    const kind = s.kinds.find(
      (k) => k.scheme === 'batch-settlement' && k.network === network() && k.extra.asset === usdc().address,
    )
    expect(kind?.extra.receiverAuthorizer).toMatch(/^0x[0-9a-fA-F]{40}$/)
    authorizer = kind!.extra.receiverAuthorizer as Address
    expect(s.kinds.some((k) => k.scheme === 'batch-settlement' && k.network === networks['local-radius']!.caip2)).toBe(
      true,
    )
  })

  it('sponsors a deposit (the buyer has no ETH) once, however often it is sent', async () => {
    expect(await localBase(d).chain.client.getBalance({ address: buyer.address })).toBe(0n)
    const before = await localBase(d).balance('USDC', buyer.address)
    const dep = await deposit(a(), '100000', '1000')
    const v = await verify(d, dep)
    expect(v).toMatchObject({
      isValid: true,
      payer: buyer.address,
      extra: { balance: '0', totalClaimed: '0', refundNonce: '0' },
    })
    const s = await settle(d, dep)
    expect(s.body).toMatchObject({
      success: true,
      amount: '100000',
      extra: { channelState: { balance: '100000', totalClaimed: '0' } },
    })
    expect(s.body.transaction).toMatch(/^0x[0-9a-f]{64}$/)
    const again = await settle(d, dep)
    expect(again.body).toMatchObject({ success: false, errorReason: 'duplicate_settlement' })
    expect(await onChain(a())).toEqual({ balance: 100_000n, totalClaimed: 0n })
    expect(await localBase(d).balance('USDC', buyer.address)).toBe(before - 100_000n)
    // A second channel of the same buyer and seller (another salt), for the batched claim.
    expect((await settle(d, await deposit(b(), '5000', '1000'))).body.success).toBe(true)
  })

  it('pays 20 requests with vouchers alone: no transaction per request', async () => {
    const block = await localBase(d).chain.client.getBlockNumber()
    for (let i = 1; i <= 20; i++) {
      const v = await verify(
        d,
        body({ type: 'voucher', channelConfig: a(), voucher: await voucher(a(), String(1000 * i)) }),
      )
      expect(v, `request ${i}`).toMatchObject({ isValid: true, extra: { balance: '100000' } })
    }
    const s = await settle(d, body({ type: 'voucher', channelConfig: a(), voucher: await voucher(a(), '20000') }))
    expect(s.body).toMatchObject({ success: true, transaction: '', extra: { channelState: { balance: '100000' } } })
    expect(await localBase(d).chain.client.getBlockNumber()).toBe(block)
  })

  it("refuses bad vouchers with the spec's reasons", async () => {
    const reason = async (payload: Record<string, unknown>, r = req()) =>
      (await verify(d, body(payload, r))).invalidReason
    expect(await reason({ type: 'voucher', channelConfig: a(), voucher: await voucher(a(), '100001') })).toBe(
      'invalid_batch_settlement_evm_cumulative_exceeds_balance',
    )
    expect(
      await reason({
        type: 'voucher',
        channelConfig: a(),
        voucher: await voucher(a(), '2000', await evmPayer(d, [], '0')),
      }),
    ).toBe('invalid_batch_settlement_evm_voucher_signature')
    expect(await reason({ type: 'voucher', channelConfig: a(), voucher: await voucher(b(), '2000') })).toBe(
      'invalid_batch_settlement_evm_channel_id_mismatch',
    )
    // The buyer's own voucher with s -> n - s: ecrecover still yields the buyer, but the contract's ECDSA refuses it at the claim, so /verify does.
    const good = await voucher(a(), '2000')
    const highS =
      0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n - BigInt(`0x${good.signature.slice(66, 130)}`)
    const malleated = `${good.signature.slice(0, 66)}${highS.toString(16).padStart(64, '0')}${good.signature.endsWith('1b') ? '1c' : '1b'}`
    expect(await reason({ type: 'voucher', channelConfig: a(), voucher: { ...good, signature: malleated } })).toBe(
      'invalid_batch_settlement_evm_voucher_signature',
    )
    expect((await verify(d, body({ type: 'voucher', channelConfig: a(), voucher: good }))).isValid).toBe(true)
    expect(
      await reason(
        { type: 'voucher', channelConfig: a(), voucher: await voucher(a(), '2000') },
        { ...req(), payTo: randomAddress() },
      ),
    ).toBe('invalid_batch_settlement_evm_receiver_mismatch')
    expect(
      await reason(
        { type: 'voucher', channelConfig: a(), voucher: await voucher(a(), '2000') },
        { ...req(), extra: { ...req().extra, withdrawDelay: 901 } },
      ),
    ).toBe('invalid_batch_settlement_evm_withdraw_delay_mismatch')
    expect(
      await reason({ type: 'voucher', channelConfig: config(99), voucher: await voucher(config(99), '2000') }),
    ).toBe('invalid_batch_settlement_evm_channel_not_found')
    expect(await reason({ type: 'bogus' })).toBe('invalid_batch_settlement_evm_payload_type')
  })

  it('refuses a self-authorized buyer at /verify and /settle, whether the requirements name our authorizer or none; nothing moves', async () => {
    // The buyer names itself as receiver authorizer: served, it could refund to itself what it spent.
    const self = { ...config(11), receiverAuthorizer: buyer.address }
    const before = await localBase(d).balance('USDC', buyer.address)
    const { receiverAuthorizer: _, ...unnamed } = req().extra
    for (const [r, why] of [
      [req(), 'invalid_batch_settlement_evm_receiver_authorizer_mismatch'],
      [{ ...req(), extra: unnamed }, 'invalid_payment_requirements'],
    ] as const) {
      const dep = body(
        (await createBatchSettlementEIP3009DepositPayload(client(), 2, r as never, self, '5000', '1000'))
          .payload as Record<string, unknown>,
        r,
      )
      expect(await verify(d, dep)).toMatchObject({ isValid: false, invalidReason: why })
      expect((await settle(d, dep)).body).toMatchObject({ success: false, errorReason: why })
    }
    // Nor a voucher on a self-authorized channel, against requirements naming no authorizer.
    expect(
      (
        await verify(
          d,
          body(
            { type: 'voucher', channelConfig: self, voucher: await voucher(self, '1000') },
            { ...req(), extra: unnamed },
          ),
        )
      ).invalidReason,
    ).toBe('invalid_payment_requirements')
    expect(await onChain(self)).toEqual({ balance: 0n, totalClaimed: 0n })
    expect(await localBase(d).balance('USDC', buyer.address)).toBe(before)
  })

  it('claims two channels in one transaction, then settles the receiver once', async () => {
    const row = async (c: ChannelConfig, max: string) => ({
      voucher: { channel: c, maxClaimableAmount: max },
      signature: (await voucher(c, max)).signature,
      totalClaimed: max,
    })
    const claimReq = { ...req(), amount: '0', extra: {} }
    const claim = await settle(
      d,
      body({ type: 'claim', claims: [await row(a(), '20000'), await row(b(), '3000')] }, claimReq),
    )
    expect(claim.body).toMatchObject({ success: true, amount: '' })
    const receipt = await localBase(d).chain.client.getTransactionReceipt({ hash: claim.body.transaction as Hex })
    console.log(`batch-settlement claim of 2 channels: ${receipt.gasUsed} gas`)
    expect(await onChain(a())).toEqual({ balance: 100_000n, totalClaimed: 20_000n })
    expect(await onChain(b())).toEqual({ balance: 5_000n, totalClaimed: 3_000n })
    // A voucher at or below what is claimed no longer pays.
    expect(
      (await verify(d, body({ type: 'voucher', channelConfig: a(), voucher: await voucher(a(), '20000') })))
        .invalidReason,
    ).toBe('invalid_batch_settlement_evm_cumulative_below_claimed')

    const swept = await settle(d, body({ type: 'settle', receiver: payTo, token: usdc().address }, claimReq))
    expect(swept.body).toMatchObject({ success: true, amount: '23000' })
    expect(await localBase(d).balance('USDC', payTo)).toBe(23_000n)
    const nothing = await settle(d, body({ type: 'settle', receiver: payTo, token: usdc().address }, claimReq))
    expect(nothing.body).toMatchObject({ success: true, transaction: '', amount: '0' })
  })

  it("refuses bad deposits, claims and refunds at settle with the spec's reasons, moving nothing", async () => {
    const before = { a: await onChain(a()), buyer: await localBase(d).balance('USDC', buyer.address) }
    const claimReq = { ...req(), amount: '0', extra: {} }
    const row = async (c: ChannelConfig, max: string, total = max) => ({
      voucher: { channel: c, maxClaimableAmount: max },
      signature: (await voucher(c, max)).signature,
      totalClaimed: total,
    })
    const refused = async (payload: Record<string, unknown>, r = claimReq) =>
      (await settle(d, body(payload, r))).body.errorReason
    // An over-claim and a claim beyond the escrow fail their simulation; nothing is sent.
    expect(await refused({ type: 'claim', claims: [await row(a(), '30000', '30001')] })).toBe(
      'invalid_batch_settlement_evm_claim_simulation_failed',
    )
    expect(await refused({ type: 'claim', claims: [await row(a(), '200000')] })).toBe(
      'invalid_batch_settlement_evm_claim_simulation_failed',
    )
    // A channel whose receiver authorizer is not ours needs the seller's own signature.
    const foreign = { ...config(3), receiverAuthorizer: randomAddress() }
    expect(await refused({ type: 'claim', claims: [await row(foreign, '1000')] })).toBe(
      'invalid_batch_settlement_evm_authorizer_address_mismatch',
    )
    // A deposit whose amount was raised after signing is not the payer's authorization.
    const dep = await deposit(config(4), '1000', '1000')
    const forged = structuredClone(dep)
    ;(forged.paymentPayload.payload as any).deposit.amount = '9000'
    expect((await settle(d, forged)).body.errorReason).toBe(
      'invalid_batch_settlement_evm_receive_authorization_signature',
    )
    // A refund for a nonce already used or not yet reached, asked by the seller.
    const wrongNonce = body(
      {
        type: 'refund',
        channelConfig: a(),
        voucher: await voucher(a(), '20000'),
        amount: '1',
        refundNonce: '7',
        claims: [],
      },
      { ...req(), amount: '0' },
    )
    expect((await post(d, 'settle', wrongNonce, { 'x-api-key': await keyFor(payTo) })).body.errorReason).toBe(
      'invalid_batch_settlement_evm_refund_payload',
    )
    expect(await onChain(a())).toEqual(before.a)
    expect(await localBase(d).balance('USDC', buyer.address)).toBe(before.buyer)
  })

  it('signs a delegated refund only for the seller: a partner key bound to the receiver; anyone else is refused and nothing moves', async () => {
    const before = { a: await onChain(a()), buyer: await localBase(d).balance('USDC', buyer.address) }
    const refund = body(
      { type: 'refund', channelConfig: a(), voucher: await voucher(a(), '20000'), refundNonce: '0', claims: [] },
      { ...req(), amount: '0' },
    )
    // The payer itself (or anyone who saw the channel) asks without a key, or with a key bound to another wallet.
    const strangerKey = await keyFor(buyer.address)
    const asks: Record<string, string>[] = [
      {},
      { 'x-api-key': strangerKey },
      { 'x-api-key': 'parx-00000000000000000000000000000000' },
    ]
    for (const headers of asks) {
      const r = await post(d, 'settle', refund, headers)
      expect(r.body, JSON.stringify(headers)).toMatchObject({
        success: false,
        errorReason: 'invalid_batch_settlement_evm_authorizer_address_mismatch',
        transaction: '',
      })
    }
    expect(await onChain(a())).toEqual(before.a)
    expect(await localBase(d).balance('USDC', buyer.address)).toBe(before.buyer)
  })

  it('refunds cooperatively once per refund nonce, the receiver authorizer delegated to us', async () => {
    const before = await localBase(d).balance('USDC', buyer.address)
    const refund = body(
      {
        type: 'refund',
        channelConfig: a(),
        voucher: await voucher(a(), '20000'),
        amount: '50000',
        refundNonce: '0',
        claims: [],
      },
      { ...req(), amount: '0' },
    )
    expect((await verify(d, refund)).isValid).toBe(true)
    const sellerKey = { 'x-api-key': await keyFor(payTo) }
    const r = await post(d, 'settle', refund, sellerKey)
    expect(r.body).toMatchObject({
      success: true,
      amount: '50000',
      extra: { channelState: { balance: '50000', totalClaimed: '20000', refundNonce: '1' } },
    })
    expect((await post(d, 'settle', refund, sellerKey)).body).toMatchObject({ success: false })
    expect(await localBase(d).balance('USDC', buyer.address)).toBe(before + 50_000n)
    // Everything adds up: 10 USDC minted, 105,000 deposited, 23,000 paid, 50,000 back; still no ETH spent by the buyer.
    expect(await localBase(d).balance('USDC', buyer.address)).toBe(10_000_000n - 105_000n + 50_000n)
    expect(await localBase(d).balance('USDC', payTo)).toBe(23_000n)
    expect(await localBase(d).chain.client.getBalance({ address: buyer.address })).toBe(0n)
  })
})

describe('batch-settlement deposits through Permit2 and payers that are smart wallets', () => {
  /** A Permit2 deposit payload as the official client builds it, with the EIP-2612 gas-sponsoring extension unless `permit` is false. */
  async function permit2Deposit(
    payer: PrivateKeyAccount,
    c: ChannelConfig,
    amount: bigint,
    o: { spender?: Address; permit?: boolean; permitValue?: bigint } = {},
  ) {
    const b = localBase(d)
    const channelId = channelIdOf(c, b.chain.chainId)
    const auth = {
      permitted: { token: c.token, amount },
      spender: o.spender ?? PERMIT2_DEPOSIT_COLLECTOR_ADDRESS,
      nonce: BigInt(Math.floor(Math.random() * 2 ** 48)),
      deadline: nowSeconds() + 600n,
      witness: { channelId },
    }
    const signature = await payer.signTypedData({
      domain: { name: 'Permit2', chainId: b.chain.chainId, verifyingContract: PERMIT2_ADDRESS },
      types: depositPermit2WitnessTypes,
      primaryType: 'PermitWitnessTransferFrom',
      message: auth,
    })
    const t = usdc()
    const value = o.permitValue ?? amount
    const nonce = await b.permitNonce('USDC', payer.address)
    const permitSig = await payer.signTypedData(
      permitTypedData(
        { name: t.name, version: t.version, chainId: b.chain.chainId, verifyingContract: t.address },
        { owner: payer.address, spender: PERMIT2_ADDRESS, value, nonce, deadline: auth.deadline },
      ) as never,
    )
    const info = {
      from: payer.address,
      asset: t.address,
      spender: PERMIT2_ADDRESS,
      amount: value.toString(),
      nonce: nonce.toString(),
      deadline: auth.deadline.toString(),
      signature: permitSig,
      version: '1',
    }
    const r = { ...req(), extra: { ...req().extra, assetTransferMethod: 'permit2' } }
    const payload = {
      type: 'deposit',
      channelConfig: c,
      voucher: await voucher(c, '1000', payer),
      deposit: {
        amount: amount.toString(),
        authorization: {
          permit2Authorization: {
            from: payer.address,
            ...auth,
            permitted: { token: c.token, amount: amount.toString() },
            nonce: auth.nonce.toString(),
            deadline: auth.deadline.toString(),
            signature,
          },
        },
      },
    }
    return {
      x402Version: 2,
      paymentPayload: {
        x402Version: 2,
        accepted: r,
        payload,
        ...(o.permit === false ? {} : { extensions: { eip2612GasSponsoring: { info, schema: {} } } }),
      },
      paymentRequirements: r,
    }
  }

  it('deposits any approved-or-permitted ERC-20 through the Permit2 collector, sponsored (the payer never approved Permit2 and has no ETH)', async () => {
    const payer = await evmPayer(d, ['USDC'], '1')
    const c = { ...config(10), payer: payer.address, payerAuthorizer: payer.address }
    const reason = async (b: Awaited<ReturnType<typeof permit2Deposit>>) => (await verify(d, b)).invalidReason
    expect(await reason(await permit2Deposit(payer, c, 40_000n, { spender: randomAddress() }))).toBe(
      'invalid_batch_settlement_evm_permit2_invalid_spender',
    )
    expect(await reason(await permit2Deposit(payer, c, 40_000n, { permit: false }))).toBe(
      'invalid_batch_settlement_evm_permit2_allowance_required',
    )
    expect(await reason(await permit2Deposit(payer, c, 40_000n, { permitValue: 50_000n }))).toBe(
      'invalid_batch_settlement_evm_eip2612_amount_mismatch',
    )
    const forged = await permit2Deposit(payer, c, 40_000n)
    ;(forged.paymentPayload.payload.deposit as any).amount = '90000'
    expect(await reason(forged)).toBe('invalid_batch_settlement_evm_permit2_amount_mismatch')
    expect(await onChain(c)).toEqual({ balance: 0n, totalClaimed: 0n })

    const good = await permit2Deposit(payer, c, 40_000n)
    expect(await verify(d, good)).toMatchObject({ isValid: true, payer: payer.address })
    const s = await settle(d, good)
    expect(s.body).toMatchObject({ success: true, amount: '40000', extra: { channelState: { balance: '40000' } } })
    expect((await settle(d, good)).body).toMatchObject({ success: false, errorReason: 'duplicate_settlement' })
    expect(await onChain(c)).toEqual({ balance: 40_000n, totalClaimed: 0n })
    expect(await localBase(d).balance('USDC', payer.address)).toBe(1_000_000n - 40_000n)
    expect(await localBase(d).chain.client.getBalance({ address: payer.address })).toBe(0n)
  })

  it("an ERC-1271 wallet (payerAuthorizer zero) deposits and pays vouchers its owner signs, judged by isValidSignature; another key's voucher is refused", async () => {
    const b = localBase(d)
    const factory = ownedWalletFactory('parx test wallet factory (batch-settlement)')
    const deployer = privateKeyToAccount(generatePrivateKey())
    await b.chain.client.request({
      method: 'anvil_setBalance' as never,
      params: [deployer.address, `0x${parseEther('1').toString(16)}`] as never,
    })
    const wallet = createWalletClient({
      account: deployer,
      chain: b.chain.client.chain,
      transport: http(b.chain.rpcUrl),
    })
    await b.chain.client.waitForTransactionReceipt({
      hash: await wallet.sendTransaction({ ...factory.deployTx, chain: b.chain.client.chain, gas: 3_000_000n }),
      pollingInterval: 20,
    })
    const owner = privateKeyToAccount(generatePrivateKey())
    const address = await b.chain.client.readContract({
      address: factory.address,
      abi: ownedWalletFactoryAbi,
      functionName: 'getAddress',
      args: [owner.address, 1n],
    })
    await b.chain.client.waitForTransactionReceipt({
      hash: await wallet.sendTransaction({
        to: factory.address,
        data: createAccountData(owner.address, 1n),
        chain: b.chain.client.chain,
      }),
      pollingInterval: 20,
    })
    await d.call('/api/local/faucet', { body: { to: address, token: 'USDC', amount: '1' } })
    // Signs as the wallet: the payer is the contract, the signature its owner's.
    const asWallet = { ...owner, address } as PrivateKeyAccount
    const c: ChannelConfig = { ...config(11), payer: address, payerAuthorizer: zeroAddress }
    const r = await createBatchSettlementEIP3009DepositPayload(
      toClientEvmSigner(asWallet, b.chain.client as never),
      2,
      req() as never,
      c,
      '30000',
      '1000',
    )
    expect((await settle(d, body(r.payload as Record<string, unknown>))).body).toMatchObject({
      success: true,
      amount: '30000',
    })
    expect(await onChain(c)).toEqual({ balance: 30_000n, totalClaimed: 0n })

    const signed = async (signer: PrivateKeyAccount, max: bigint) =>
      signer.signTypedData(voucherTypedData(b.chain.chainId, channelIdOf(c, b.chain.chainId), max))
    const pay = async (signer: PrivateKeyAccount, max: bigint) =>
      verify(
        d,
        body({
          type: 'voucher',
          channelConfig: c,
          voucher: {
            channelId: channelIdOf(c, b.chain.chainId),
            maxClaimableAmount: max.toString(),
            signature: await signed(signer, max),
          },
        }),
      )
    expect(await pay(owner, 2000n)).toMatchObject({ isValid: true, payer: address })
    expect((await pay(privateKeyToAccount(generatePrivateKey()), 2000n)).invalidReason).toBe(
      'invalid_batch_settlement_evm_voucher_signature',
    )
    // The contract agrees: the seller claims the wallet's voucher on chain.
    const claim = await settle(
      d,
      body(
        {
          type: 'claim',
          claims: [
            {
              voucher: { channel: c, maxClaimableAmount: '2000' },
              signature: await signed(owner, 2000n),
              totalClaimed: '2000',
            },
          ],
        },
        { ...req(), amount: '0', extra: {} },
      ),
    )
    expect(claim.body).toMatchObject({ success: true })
    expect(await onChain(c)).toEqual({ balance: 30_000n, totalClaimed: 2_000n })
  })
})
