import { toClientEvmSigner } from '@x402/evm'
import { AuthCaptureEvmScheme } from '@x402/evm/auth-capture/client'
import {
  type Abi,
  type Address,
  decodeErrorResult,
  encodeFunctionData,
  getContractAddress,
  type Hex,
  keccak256,
  maxUint256,
  parseEventLogs,
  serializeErc6492Signature,
  type TransactionReceipt,
  toFunctionSelector,
  toHex,
  zeroAddress,
} from 'viem'
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TOKEN_A, USDC } from '../../src/networks/registry.js'
import { receiveWithAuthorizationTypes } from '../../src/sdk/eip712.js'
import {
  AUTH_CAPTURE_V1_0,
  AUTH_CAPTURE_V1_1,
  type AuthCaptureDeployment,
  authCaptureEscrowAbi,
  authCaptureRuntimeCode,
} from '../../src/sdk/x402/evm/auth-capture/contracts.js'
import {
  boundSalt,
  type PaymentInfo,
  paymentInfoHash,
  signatureNonce,
} from '../../src/sdk/x402/evm/auth-capture/payment-info.js'
import { PERMIT2_ADDRESS } from '../../src/sdk/x402/evm/permit2.js'
import * as AuthCaptureERC3009CollectorV1_1 from './artifacts/AuthCaptureERC3009CollectorV1_1.js'
import * as AuthCaptureOperatorRefundCollectorV1_1 from './artifacts/AuthCaptureOperatorRefundCollectorV1_1.js'
import * as AuthCapturePermit2CollectorV1_1 from './artifacts/AuthCapturePermit2CollectorV1_1.js'
import * as AuthCaptureTokenStoreV1_1 from './artifacts/AuthCaptureTokenStoreV1_1.js'
import * as Multicall3 from './artifacts/Multicall3.js'
import * as Permit2Lite from './artifacts/Permit2Lite.js'
import * as UsdcToken from './artifacts/UsdcToken.js'
import { hostileAuthCaptureTokenAbi, hostileAuthCaptureTokenBytecode } from './testing/auth-capture-hostile.js'
import { type Call, MULTICALL3, startTestChain, type TestChain } from './testing/chain.js'
import { createAccountData, ownedWalletFactory, ownedWalletFactoryAbi } from './testing/owned-wallet.js'
import { balanceOf, type DeployedToken, deployToken, mint } from './testing/tokens.js'

// Reverts inside the collectors, the token store, Permit2 and the token decode by name too.
const errors = [
  ...AuthCaptureERC3009CollectorV1_1.abi,
  ...AuthCaptureTokenStoreV1_1.abi,
  ...Permit2Lite.abi,
  ...UsdcToken.abi,
].filter((e) => e.type === 'error')
const collectorAbi = AuthCaptureERC3009CollectorV1_1.abi

/** Permit2's plain signature transfer, as the official auth-capture client signs it (no witness). */
const permitTransferFromTypes = {
  PermitTransferFrom: [
    { name: 'permitted', type: 'TokenPermissions' },
    { name: 'spender', type: 'address' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
  ],
  TokenPermissions: [
    { name: 'token', type: 'address' },
    { name: 'amount', type: 'uint256' },
  ],
} as const

let tc: TestChain
let usdc: DeployedToken
let pusd: DeployedToken
let chainId: number
/** payer, receiver, the payments' operator, and someone who is none of them. */
let payer: PrivateKeyAccount, receiver: PrivateKeyAccount, operator: PrivateKeyAccount, stranger: PrivateKeyAccount
const feeTo = privateKeyToAccount(keccak256(toHex('auth-capture test fee receiver'))).address
const gas: Record<string, bigint> = {}

beforeAll(async () => {
  tc = await startTestChain()
  chainId = tc.chain.id
  ;({ user: payer, other: receiver, solver: operator, deployer: stranger } = tc.accounts)
  for (const [address, bytecode] of [
    [MULTICALL3, Multicall3.deployedBytecode],
    [PERMIT2_ADDRESS, Permit2Lite.deployedBytecode],
    ...authCaptureRuntimeCode,
  ] as const)
    await tc.testClient.setCode({ address, bytecode })
  usdc = await deployToken(tc, USDC)
  pusd = await deployToken(tc, TOKEN_A)
  await mint(tc, usdc, payer.address, 1_000_000_000n)
  await mint(tc, pusd, payer.address, 1_000_000_000n)
  await mint(tc, usdc, operator.address, 1_000_000_000n)
  await tc.send(payer, {
    address: pusd.address,
    abi: pusd.abi,
    functionName: 'approve',
    args: [PERMIT2_ADDRESS, maxUint256],
  })
  for (const d of [AUTH_CAPTURE_V1_1, AUTH_CAPTURE_V1_0]) {
    await tc.send(operator, {
      address: usdc.address,
      abi: usdc.abi,
      functionName: 'approve',
      args: [d.operatorRefundCollector, maxUint256],
    })
  }
})
afterAll(async () => {
  if (Object.keys(gas).length > 0)
    console.log(
      `auth-capture gas: ${JSON.stringify(Object.fromEntries(Object.entries(gas).map(([k, v]) => [k, Number(v)])))}`,
    )
  await tc?.stop()
})

let counter = 0
const fresh = (label: string): bigint => BigInt(keccak256(toHex(`auth-capture test ${label} ${counter++}`)))
const events = (d: AuthCaptureDeployment, r: TransactionReceipt, eventName: string) =>
  parseEventLogs({ abi: authCaptureEscrowAbi[d.version] as Abi, logs: r.logs, eventName }) as unknown as Array<{
    args: Record<string, unknown>
  }>

/** What each version's fee argument is for a fee of `bps` on `amount`: v1.1 an amount, v1.0 the bps. */
const feeArg = (d: AuthCaptureDeployment, amount: bigint, bps: number) =>
  d.version === 'v1.1' ? (amount * BigInt(bps)) / 10_000n : bps

describe.each([AUTH_CAPTURE_V1_1, AUTH_CAPTURE_V1_0])(
  'AuthCaptureEscrow $version placed at its canonical address',
  (d) => {
    const escrow = { address: d.escrow, abi: [...authCaptureEscrowAbi[d.version], ...errors] } as const
    let now: bigint

    beforeAll(async () => {
      now = await tc.latestTimestamp()
    })

    const info = (o: Partial<PaymentInfo> = {}): PaymentInfo => ({
      operator: operator.address,
      payer: payer.address,
      receiver: receiver.address,
      token: usdc.address,
      maxAmount: 10_000n,
      preApprovalExpiry: Number(now) + 3_600,
      authorizationExpiry: Number(now) + 7_200,
      refundExpiry: Number(now) + 10_800,
      minFeeBps: 100,
      maxFeeBps: 500,
      feeReceiver: feeTo,
      salt: fresh('salt'),
      ...o,
    })
    const idOf = (p: PaymentInfo) => paymentInfoHash(p, chainId, d.escrow)
    const state = async (p: PaymentInfo) => {
      const [hasCollectedPayment, capturableAmount, refundableAmount] = (await tc.client.readContract({
        ...escrow,
        functionName: 'paymentState',
        args: [idOf(p)],
      })) as readonly [boolean, bigint, bigint]
      return { hasCollectedPayment, capturableAmount, refundableAmount }
    }
    const store = async (who: Address = operator.address) =>
      tc.client.readContract({ ...escrow, functionName: 'getTokenStore', args: [who] }) as Promise<Address>

    /** The payer's ERC-3009 authorization of `maxAmount` to the collector, as the official client signs it. */
    const sign3009 = (p: PaymentInfo, o: { signer?: PrivateKeyAccount; to?: Address } = {}) =>
      (o.signer ?? payer).signTypedData({
        domain: usdc.domain,
        types: receiveWithAuthorizationTypes,
        primaryType: 'ReceiveWithAuthorization',
        message: {
          from: p.payer,
          to: o.to ?? d.eip3009Collector,
          value: p.maxAmount,
          validAfter: 0n,
          validBefore: BigInt(p.preApprovalExpiry),
          nonce: signatureNonce(p, chainId, d.escrow),
        },
      })
    const signPermit2 = (p: PaymentInfo, spender: Address = d.permit2Collector) =>
      payer.signTypedData({
        domain: { name: 'Permit2', chainId, verifyingContract: PERMIT2_ADDRESS },
        types: permitTransferFromTypes,
        primaryType: 'PermitTransferFrom',
        message: {
          permitted: { token: p.token, amount: p.maxAmount },
          spender,
          nonce: BigInt(signatureNonce(p, chainId, d.escrow)),
          deadline: BigInt(p.preApprovalExpiry),
        },
      })
    const authorize = async (
      p: PaymentInfo,
      amount = p.maxAmount,
      o: { collector?: Address; data?: Hex } = {},
    ): Promise<Call> => ({
      ...escrow,
      functionName: 'authorize',
      args: [p, amount, o.collector ?? d.eip3009Collector, o.data ?? (await sign3009(p))],
    })
    const charge = async (
      p: PaymentInfo,
      amount: bigint,
      bps: number,
      feeReceiver: Address = feeTo,
      fee = feeArg(d, amount, bps),
    ): Promise<Call> => ({
      ...escrow,
      functionName: 'charge',
      args: [p, amount, d.eip3009Collector, await sign3009(p), fee, feeReceiver],
    })
    const capture = (
      p: PaymentInfo,
      amount: bigint,
      bps: number,
      feeReceiver: Address = feeTo,
      fee = feeArg(d, amount, bps),
    ): Call => ({ ...escrow, functionName: 'capture', args: [p, amount, fee, feeReceiver] })
    const voidCall = (p: PaymentInfo): Call => ({ ...escrow, functionName: 'void', args: [p] })
    const refund = (p: PaymentInfo, amount: bigint, collector: Address = d.operatorRefundCollector): Call => ({
      ...escrow,
      functionName: 'refund',
      args: [p, amount, collector, '0x'],
    })
    const held = async (p: PaymentInfo) => {
      await tc.send(operator, await authorize(p))
      return p
    }
    const note = (label: string, r: TransactionReceipt) => (gas[`${d.version} ${label}`] = r.gasUsed)

    it('hashes PaymentInfo as the reference and the official client do, and exposes the reference entry points', async () => {
      const p = info()
      expect(await tc.client.readContract({ ...escrow, functionName: 'getHash', args: [p] })).toBe(idOf(p))
      expect(
        await tc.client.readContract({ ...escrow, functionName: 'getHash', args: [{ ...p, payer: zeroAddress }] }),
      ).toBe(signatureNonce(p, chainId, d.escrow))
      // The id names the escrow: the other deployment's hash of the same payment differs.
      expect(idOf(p)).not.toBe(
        paymentInfoHash(p, chainId, d === AUTH_CAPTURE_V1_1 ? AUTH_CAPTURE_V1_0.escrow : AUTH_CAPTURE_V1_1.escrow),
      )
      expect(await tc.client.readContract({ ...escrow, functionName: 'tokenStoreImplementation' })).toBe(d.tokenStore)
      expect(d.tokenStore).toBe(getContractAddress({ from: d.escrow, nonce: 1n }))
      for (const c of [d.eip3009Collector, d.permit2Collector, d.operatorRefundCollector]) {
        expect(await tc.client.readContract({ address: c, abi: collectorAbi, functionName: 'authCaptureEscrow' })).toBe(
          d.escrow,
        )
      }
      expect(
        await tc.client.readContract({
          address: d.operatorRefundCollector,
          abi: AuthCaptureOperatorRefundCollectorV1_1.abi,
          functionName: 'collectorType',
        }),
      ).toBe(1)
      expect(
        await tc.client.readContract({ address: d.eip3009Collector, abi: collectorAbi, functionName: 'collectorType' }),
      ).toBe(0)
      expect(
        await tc.client.readContract({ address: d.eip3009Collector, abi: collectorAbi, functionName: 'multicall3' }),
      ).toBe(MULTICALL3)
      expect(
        await tc.client.readContract({
          address: d.permit2Collector,
          abi: AuthCapturePermit2CollectorV1_1.abi,
          functionName: 'permit2',
        }),
      ).toBe(PERMIT2_ADDRESS)
      const tuple = '(address,address,address,address,uint120,uint48,uint48,uint48,uint16,uint16,address,uint256)'
      const fee = d.version === 'v1.1' ? 'uint256' : 'uint16'
      const selectors = new Set(
        (escrow.abi as Abi).filter((e) => e.type === 'function').map((e) => toFunctionSelector(e as never)),
      )
      for (const sig of [
        `authorize(${tuple},uint256,address,bytes)`,
        `charge(${tuple},uint256,address,bytes,${fee},address)`,
        `capture(${tuple},uint256,${fee},address)`,
        `void(${tuple})`,
        `reclaim(${tuple})`,
        `refund(${tuple},uint256,address,bytes)`,
        `getHash(${tuple})`,
        'getTokenStore(address)',
        'paymentState(bytes32)',
        'PAYMENT_INFO_TYPEHASH()',
        'tokenStoreImplementation()',
      ])
        expect(selectors.has(toFunctionSelector(`function ${sig}`)), sig).toBe(true)
    })

    it("authorizes by ERC-3009: the whole maximum moves to the operator's token store, once", async () => {
      const p = info()
      const payerBefore = await balanceOf(tc, usdc, payer.address)
      const storeBefore = await balanceOf(tc, usdc, await store())
      const call = await authorize(p)
      const r = await tc.send(operator, call)
      note('authorize (ERC-3009)', r)
      expect(events(d, r, 'PaymentAuthorized')[0]?.args).toMatchObject({
        paymentInfoHash: idOf(p),
        amount: 10_000n,
        tokenCollector: d.eip3009Collector,
      })
      expect(await state(p)).toEqual({ hasCollectedPayment: true, capturableAmount: 10_000n, refundableAmount: 0n })
      expect(await balanceOf(tc, usdc, payer.address)).toBe(payerBefore - 10_000n)
      expect(await balanceOf(tc, usdc, await store())).toBe(storeBefore + 10_000n)
      expect(await balanceOf(tc, usdc, d.eip3009Collector)).toBe(0n)
      await tc.expectRevert(operator, call, 'PaymentAlreadyCollected')
    })

    it('authorizes less than the maximum: the rest goes straight back to the payer', async () => {
      const p = info()
      const payerBefore = await balanceOf(tc, usdc, payer.address)
      await tc.send(operator, await authorize(p, 6_000n))
      expect(await state(p)).toMatchObject({ capturableAmount: 6_000n })
      expect(await balanceOf(tc, usdc, payer.address)).toBe(payerBefore - 6_000n)
      expect(await balanceOf(tc, usdc, d.eip3009Collector)).toBe(0n)
    })

    it('refuses another sender than the operator, a signature for another payment, collector or signer, a refund collector, and a direct collector call', async () => {
      const p = info()
      await tc.expectRevert(stranger, await authorize(p), 'InvalidSender')
      // The same signature presented for a payment with another salt (its nonce is that payment's hash).
      const other = info()
      await tc.expectRevert(
        operator,
        { ...(await authorize(other)), args: [p, 10_000n, d.eip3009Collector, await sign3009(other)] },
        'ERC3009InvalidSignature',
      )
      await tc.expectRevert(
        operator,
        await authorize(p, 10_000n, { data: await sign3009(p, { signer: stranger }) }),
        'ERC3009InvalidSignature',
      )
      const otherSet = d === AUTH_CAPTURE_V1_1 ? AUTH_CAPTURE_V1_0 : AUTH_CAPTURE_V1_1
      await tc.expectRevert(
        operator,
        await authorize(p, 10_000n, { data: await sign3009(p, { to: otherSet.eip3009Collector }) }),
        'ERC3009InvalidSignature',
      )
      await tc.expectRevert(
        operator,
        await authorize(p, 10_000n, { collector: d.operatorRefundCollector }),
        'InvalidCollectorForOperation',
      )
      await tc.expectRevert(
        operator,
        await authorize(p, 10_000n, { collector: otherSet.eip3009Collector }),
        'OnlyAuthCaptureEscrow',
      )
      await tc.expectRevert(
        operator,
        {
          address: d.eip3009Collector,
          abi: collectorAbi,
          functionName: 'collectTokens',
          args: [p, operator.address, 1n, await sign3009(p)],
        },
        'OnlyAuthCaptureEscrow',
      )
      await tc.expectRevert(
        operator,
        {
          address: d.tokenStore,
          abi: AuthCaptureTokenStoreV1_1.abi,
          functionName: 'sendTokens',
          args: [usdc.address, operator.address, 1n],
        },
        'OnlyAuthCaptureEscrow',
      )
      expect(await state(p)).toEqual({ hasCollectedPayment: false, capturableAmount: 0n, refundableAmount: 0n })
    })

    it('refuses zero, more than the maximum, and more than uint120', async () => {
      const p = info()
      await tc.expectRevert(operator, await authorize(p, 0n), 'ZeroAmount')
      await tc.expectRevert(operator, await authorize(p, 10_001n), 'ExceedsMaxAmount')
      await tc.expectRevert(operator, await authorize(p, 2n ** 120n), 'AmountOverflow')
    })

    it('authorizes any ERC-20 through Permit2: exactly the amount, straight to the token store', async () => {
      const p = info({ token: pusd.address })
      const payerBefore = await balanceOf(tc, pusd, payer.address)
      const call = await authorize(p, 4_000n, { collector: d.permit2Collector, data: await signPermit2(p) })
      const r = await tc.send(operator, call)
      note('authorize (Permit2)', r)
      expect(await state(p)).toMatchObject({ capturableAmount: 4_000n })
      expect(await balanceOf(tc, pusd, payer.address)).toBe(payerBefore - 4_000n)
      expect(await balanceOf(tc, pusd, await store())).toBe(4_000n)
      // Signed for another spender: Permit2's digest differs.
      await tc.expectRevert(
        operator,
        await authorize(info({ token: pusd.address }), 4_000n, {
          collector: d.permit2Collector,
          data: await signPermit2(p, stranger.address),
        }),
        'InvalidSigner',
      )
    })

    it('captures in full, in part and several times, with the fee to its receiver; voids the rest; never more than held', async () => {
      const p = await held(info())
      const r0 = await balanceOf(tc, usdc, receiver.address)
      const f0 = await balanceOf(tc, usdc, feeTo)
      const first = await tc.send(operator, capture(p, 3_000n, 100))
      note('capture', first)
      expect(events(d, first, 'PaymentCaptured')[0]?.args).toMatchObject({
        paymentInfoHash: idOf(p),
        amount: 3_000n,
        feeReceiver: feeTo,
      })
      await tc.send(operator, capture(p, 5_000n, 500))
      expect(await state(p)).toEqual({ hasCollectedPayment: true, capturableAmount: 2_000n, refundableAmount: 8_000n })
      expect(await balanceOf(tc, usdc, receiver.address)).toBe(r0 + 2_970n + 4_750n)
      expect(await balanceOf(tc, usdc, feeTo)).toBe(f0 + 30n + 250n)
      await tc.expectRevert(operator, capture(p, 2_001n, 100), 'InsufficientAuthorization')
      await tc.expectRevert(stranger, capture(p, 1_000n, 100), 'InvalidSender')
      await tc.expectRevert(stranger, voidCall(p), 'InvalidSender')

      const payerBefore = await balanceOf(tc, usdc, payer.address)
      const v = await tc.send(operator, voidCall(p))
      note('void', v)
      expect(events(d, v, 'PaymentVoided')[0]?.args).toMatchObject({ paymentInfoHash: idOf(p), amount: 2_000n })
      expect(await balanceOf(tc, usdc, payer.address)).toBe(payerBefore + 2_000n)
      expect(await state(p)).toEqual({ hasCollectedPayment: true, capturableAmount: 0n, refundableAmount: 8_000n })
      await tc.expectRevert(operator, capture(p, 1n, 100), 'InsufficientAuthorization')
      await tc.expectRevert(operator, voidCall(p), 'ZeroAuthorization')
      // A voided payment cannot be authorized again with the same signature.
      await tc.expectRevert(operator, await authorize(p), 'PaymentAlreadyCollected')

      const full = await held(info())
      await tc.send(operator, capture(full, 10_000n, 200))
      expect(await state(full)).toEqual({ hasCollectedPayment: true, capturableAmount: 0n, refundableAmount: 10_000n })
    })

    it('charges in one step: collected and paid out, refundable, never twice', async () => {
      const p = info()
      const payer0 = await balanceOf(tc, usdc, payer.address)
      const r0 = await balanceOf(tc, usdc, receiver.address)
      const call = await charge(p, 7_000n, 100)
      const r = await tc.send(operator, call)
      note('charge', r)
      expect(events(d, r, 'PaymentCharged')[0]?.args).toMatchObject({
        paymentInfoHash: idOf(p),
        amount: 7_000n,
        tokenCollector: d.eip3009Collector,
        feeReceiver: feeTo,
      })
      expect(await state(p)).toEqual({ hasCollectedPayment: true, capturableAmount: 0n, refundableAmount: 7_000n })
      expect(await balanceOf(tc, usdc, payer.address)).toBe(payer0 - 7_000n)
      expect(await balanceOf(tc, usdc, receiver.address)).toBe(r0 + 6_930n)
      await tc.expectRevert(operator, call, 'PaymentAlreadyCollected')
      await tc.expectRevert(operator, voidCall(p), 'ZeroAuthorization')
    })

    it("refunds captured funds with the operator's liquidity through the refund collector, up to what was captured", async () => {
      const p = await held(info())
      await tc.send(operator, capture(p, 6_000n, 100))
      await tc.expectRevert(operator, refund(p, 6_001n), 'RefundExceedsCapture')
      await tc.expectRevert(operator, refund(p, 1_000n, d.eip3009Collector), 'InvalidCollectorForOperation')
      await tc.expectRevert(stranger, refund(p, 1_000n), 'InvalidSender')
      await tc.expectRevert(operator, refund(p, 0n), 'ZeroAmount')
      const payer0 = await balanceOf(tc, usdc, payer.address)
      const op0 = await balanceOf(tc, usdc, operator.address)
      const r = await tc.send(operator, refund(p, 2_500n))
      note('refund', r)
      expect(events(d, r, 'PaymentRefunded')[0]?.args).toMatchObject({
        paymentInfoHash: idOf(p),
        amount: 2_500n,
        tokenCollector: d.operatorRefundCollector,
      })
      expect(await balanceOf(tc, usdc, payer.address)).toBe(payer0 + 2_500n)
      expect(await balanceOf(tc, usdc, operator.address)).toBe(op0 - 2_500n)
      expect(await state(p)).toEqual({ hasCollectedPayment: true, capturableAmount: 4_000n, refundableAmount: 3_500n })
      await tc.send(operator, refund(p, 3_500n))
      await tc.expectRevert(operator, refund(p, 1n), 'RefundExceedsCapture')
      // The hold still captures, and what it captures is refundable again.
      await tc.send(operator, capture(p, 4_000n, 100))
      expect(await state(p)).toMatchObject({ capturableAmount: 0n, refundableAmount: 4_000n })
    })

    it('enforces preApprovalExpiry <= authorizationExpiry <= refundExpiry, and collecting before preApprovalExpiry', async () => {
      const t = Number(now) + 3_600
      await tc.expectRevert(
        operator,
        await authorize(info({ preApprovalExpiry: t + 1, authorizationExpiry: t, refundExpiry: t + 10 })),
        'InvalidExpiries',
      )
      await tc.expectRevert(
        operator,
        await authorize(info({ preApprovalExpiry: t, authorizationExpiry: t + 11, refundExpiry: t + 10 })),
        'InvalidExpiries',
      )
      await tc.expectRevert(
        operator,
        await charge(info({ preApprovalExpiry: t, authorizationExpiry: t + 11, refundExpiry: t + 10 }), 1_000n, 100),
        'InvalidExpiries',
      )
      await tc.expectRevert(
        operator,
        await authorize(info({ preApprovalExpiry: Number(await tc.latestTimestamp()) })),
        'AfterPreApprovalExpiry',
      )
      const equal = info({ preApprovalExpiry: t, authorizationExpiry: t, refundExpiry: t })
      await tc.send(operator, await authorize(equal))
      expect(await state(equal)).toMatchObject({ capturableAmount: 10_000n })
    })

    it("keeps fees within the payment's bounds and sends them only where it allows", async () => {
      await tc.expectRevert(operator, await authorize(info({ maxFeeBps: 10_001 })), 'FeeBpsOverflow')
      await tc.expectRevert(operator, await authorize(info({ minFeeBps: 300, maxFeeBps: 200 })), 'InvalidFeeBpsRange')
      const p = await held(info())
      if (d.version === 'v1.1') {
        // Bounds are the basis points of this capture's amount, integer-divided: 999 at 1%..5% is 9..49.
        await tc.expectRevert(operator, capture(p, 999n, 0, feeTo, 8n), 'FeeAmountOutOfRange')
        await tc.expectRevert(operator, capture(p, 999n, 0, feeTo, 50n), 'FeeAmountOutOfRange')
        expect(await tc.revertReason(operator, capture(p, 999n, 0, feeTo, 50n))).toBe('FeeAmountOutOfRange')
        const f0 = await balanceOf(tc, usdc, feeTo)
        await tc.send(operator, capture(p, 999n, 0, feeTo, 9n))
        await tc.send(operator, capture(p, 999n, 0, feeTo, 49n))
        expect(await balanceOf(tc, usdc, feeTo)).toBe(f0 + 58n)
      } else {
        await tc.expectRevert(operator, capture(p, 1_000n, 99), 'FeeBpsOutOfRange')
        await tc.expectRevert(operator, capture(p, 1_000n, 501), 'FeeBpsOutOfRange')
        const f0 = await balanceOf(tc, usdc, feeTo)
        await tc.send(operator, capture(p, 999n, 100))
        await tc.send(operator, capture(p, 999n, 500))
        expect(await balanceOf(tc, usdc, feeTo)).toBe(f0 + 9n + 49n)
      }
      // The payment names its fee receiver: nobody else may take the fee.
      await tc.expectRevert(operator, capture(p, 1_000n, 100, stranger.address), 'InvalidFeeReceiver')
      // Without one the operator names it at capture, but a fee needs somewhere to go.
      const open = await held(info({ feeReceiver: zeroAddress }))
      await tc.expectRevert(operator, capture(open, 1_000n, 100, zeroAddress), 'ZeroFeeReceiver')
      const s0 = await balanceOf(tc, usdc, stranger.address)
      await tc.send(operator, capture(open, 1_000n, 100, stranger.address))
      expect(await balanceOf(tc, usdc, stranger.address)).toBe(s0 + 10n)
      // Zero fee bounds and no fee receiver: nothing can be taken, and nothing needs a receiver.
      const free = await held(info({ feeReceiver: zeroAddress, minFeeBps: 0, maxFeeBps: 0 }))
      const r0 = await balanceOf(tc, usdc, receiver.address)
      await tc.send(operator, capture(free, 10_000n, 0, zeroAddress))
      expect(await balanceOf(tc, usdc, receiver.address)).toBe(r0 + 10_000n)
      await tc.expectRevert(
        operator,
        await charge(
          info({ feeReceiver: zeroAddress, minFeeBps: 0, maxFeeBps: 0 }),
          1_000n,
          1,
          stranger.address,
          d.version === 'v1.1' ? 1n : 1,
        ),
        d.version === 'v1.1' ? 'FeeAmountOutOfRange' : 'FeeBpsOutOfRange',
      )
    })

    it('collects from a smart wallet that does not exist yet: the collector deploys it from the ERC-6492 envelope, through Multicall3', async () => {
      const factory = ownedWalletFactory(`auth-capture ${d.version}`)
      const deployed = await tc.client.waitForTransactionReceipt({
        hash: await tc.wallet(stranger).sendTransaction({ ...factory.deployTx, gas: 3_000_000n }),
      })
      expect(deployed.status).toBe('success')
      const wallet = await tc.client.readContract({
        address: factory.address,
        abi: ownedWalletFactoryAbi,
        functionName: 'getAddress',
        args: [payer.address, 1n],
      })
      await mint(tc, usdc, wallet, 10_000n)
      expect(await tc.client.getCode({ address: wallet })).toBeUndefined()
      const p = info({ payer: wallet })
      const signature = serializeErc6492Signature({
        address: factory.address,
        data: createAccountData(payer.address, 1n),
        signature: await sign3009(p),
      })
      await tc.send(operator, await authorize(p, 10_000n, { data: signature }))
      expect(await tc.client.getCode({ address: wallet })).toMatch(/^0x[0-9a-f]{100,}/)
      expect(await balanceOf(tc, usdc, wallet)).toBe(0n)
      expect(await state(p)).toMatchObject({ capturableAmount: 10_000n })
    })

    it("creates the operator's token store at its first payout; each operator's funds stay apart", async () => {
      const other = tc.accounts.deployer
      await mint(tc, usdc, other.address, 0n)
      const p = info({ operator: other.address })
      expect(await tc.client.getCode({ address: await store(other.address) })).toBeUndefined()
      await tc.send(other, await authorize(p))
      expect(await balanceOf(tc, usdc, await store(other.address))).toBe(10_000n)
      const r = await tc.send(other, capture(p, 1_000n, 100))
      expect(events(d, r, 'TokenStoreCreated')[0]?.args).toMatchObject({
        operator: other.address,
        tokenStore: await store(other.address),
      })
      expect(await tc.client.getCode({ address: await store(other.address) })).toMatch(/^0x363d3d373d3d3d363d73/)
      // The first operator's store pays nothing of it.
      await tc.expectRevert(operator, capture({ ...p }, 1_000n, 100), 'InvalidSender')
      expect(await balanceOf(tc, usdc, await store(other.address))).toBe(9_000n)
    })
  },
)

describe.each([AUTH_CAPTURE_V1_1, AUTH_CAPTURE_V1_0])(
  'the official @x402/evm auth-capture client against the $version escrow',
  (d) => {
    const escrow = { address: d.escrow, abi: [...authCaptureEscrowAbi[d.version], ...errors] } as const

    /** The requirements a server sends; the v1.0 escrow must be named, v1.1 is the client's default. */
    const requirements = async (o: { token?: DeployedToken; extra?: Record<string, unknown> } = {}) => {
      const token = o.token ?? usdc
      // The client dates its authorization by the wall clock; the chain may be ahead of it.
      const clock = Math.max(Math.floor(Date.now() / 1000), Number(await tc.latestTimestamp()))
      return {
        scheme: 'auth-capture',
        network: `eip155:${chainId}`,
        amount: '25000',
        asset: token.address,
        payTo: receiver.address,
        maxTimeoutSeconds: 600,
        extra: {
          name: token.domain.name,
          version: token.domain.version,
          captureAuthorizer: operator.address,
          feeRecipient: feeTo,
          captureDeadline: clock + 3_600,
          refundDeadline: clock + 7_200,
          minFeeBps: 100,
          maxFeeBps: 100,
          ...(d === AUTH_CAPTURE_V1_0 ? { authCaptureEscrow: d.escrow } : {}),
          ...o.extra,
        },
      }
    }
    type Req = Awaited<ReturnType<typeof requirements>>
    type Payload = {
      authorization?: { from: Address; to: Address; value: string; validBefore: string; nonce: Hex }
      permit2Authorization?: { from: Address; spender: Address; nonce: string; deadline: string }
      signature: Hex
      salt: Hex
      saltNonce?: Hex
    }

    /** The PaymentInfo a facilitator rebuilds from the requirements and the payload (the binding's appendix). */
    const rebuild = (req: Req, payload: Payload): PaymentInfo => {
      const from = payload.authorization?.from ?? payload.permit2Authorization!.from
      const deadline = payload.authorization?.validBefore ?? payload.permit2Authorization!.deadline
      return {
        operator: req.extra.captureAuthorizer,
        payer: from,
        receiver: req.payTo,
        token: req.asset,
        maxAmount: BigInt(req.amount),
        preApprovalExpiry: Number(deadline),
        authorizationExpiry: req.extra.captureDeadline,
        refundExpiry: req.extra.refundDeadline,
        minFeeBps: req.extra.minFeeBps,
        maxFeeBps: req.extra.maxFeeBps,
        feeReceiver: req.extra.feeRecipient,
        salt: BigInt(payload.salt),
      }
    }
    const pay = async (req: Req) => {
      const client = new AuthCaptureEvmScheme(toClientEvmSigner(payer, tc.client as never))
      return (await client.createPaymentPayload(2, req as never)).payload as unknown as Payload
    }

    it('an ERC-3009 authorization the client signed is authorized by the operator, lands in its token store, and captures', async () => {
      const req = await requirements()
      const payload = await pay(req)
      expect(payload.authorization!.to).toBe(d.eip3009Collector)
      const p = rebuild(req, payload)
      expect(payload.authorization!.nonce).toBe(signatureNonce(p, chainId, d.escrow))
      expect(
        await tc.client.readContract({ ...escrow, functionName: 'getHash', args: [{ ...p, payer: zeroAddress }] }),
      ).toBe(payload.authorization!.nonce)
      const tokenStore = (await tc.client.readContract({
        ...escrow,
        functionName: 'getTokenStore',
        args: [operator.address],
      })) as Address
      const payer0 = await balanceOf(tc, usdc, payer.address)
      const store0 = await balanceOf(tc, usdc, tokenStore)
      await tc.send(operator, {
        ...escrow,
        functionName: 'authorize',
        args: [p, p.maxAmount, d.eip3009Collector, payload.signature],
      })
      expect(await balanceOf(tc, usdc, payer.address)).toBe(payer0 - 25_000n)
      expect(await balanceOf(tc, usdc, tokenStore)).toBe(store0 + 25_000n)
      const [, capturable] = (await tc.client.readContract({
        ...escrow,
        functionName: 'paymentState',
        args: [paymentInfoHash(p, chainId, d.escrow)],
      })) as readonly [boolean, bigint, bigint]
      expect(capturable).toBe(25_000n)
      const r0 = await balanceOf(tc, usdc, receiver.address)
      await tc.send(operator, {
        ...escrow,
        functionName: 'capture',
        args: [p, 20_000n, feeArg(d, 20_000n, 100), feeTo],
      })
      await tc.send(operator, { ...escrow, functionName: 'void', args: [p] })
      expect(await balanceOf(tc, usdc, receiver.address)).toBe(r0 + 19_800n)
      expect(await balanceOf(tc, usdc, payer.address)).toBe(payer0 - 20_000n)
    })

    it('a Permit2 authorization the client signed collects too', async () => {
      const req = await requirements({ token: pusd, extra: { assetTransferMethod: 'permit2' } })
      const payload = await pay(req)
      expect(payload.permit2Authorization!.spender).toBe(d.permit2Collector)
      const p = rebuild(req, payload)
      const payer0 = await balanceOf(tc, pusd, payer.address)
      await tc.send(operator, {
        ...escrow,
        functionName: 'authorize',
        args: [p, p.maxAmount, d.permit2Collector, payload.signature],
      })
      expect(await balanceOf(tc, pusd, payer.address)).toBe(payer0 - 25_000n)
    })

    it('with a receiver authorizer the client binds the salt to it, as our boundSalt computes, and the payment still collects', async () => {
      const authorizer = stranger.address
      const req = await requirements({ extra: { receiverAuthorizer: authorizer } })
      const payload = await pay(req)
      expect(payload.saltNonce).toMatch(/^0x[0-9a-f]{64}$/)
      expect(BigInt(payload.salt)).toBe(boundSalt(authorizer, zeroAddress, BigInt(payload.saltNonce!)))
      const p = rebuild(req, payload)
      await tc.send(operator, {
        ...escrow,
        functionName: 'charge',
        args: [p, 10_000n, d.eip3009Collector, payload.signature, feeArg(d, 10_000n, 100), feeTo],
      })
      const [, , refundable] = (await tc.client.readContract({
        ...escrow,
        functionName: 'paymentState',
        args: [paymentInfoHash(p, chainId, d.escrow)],
      })) as readonly [boolean, bigint, bigint]
      expect(refundable).toBe(10_000n)
    })
  },
)

describe('reentrancy through a hostile token (v1.1)', () => {
  const d = AUTH_CAPTURE_V1_1
  const escrow = { address: d.escrow, abi: [...authCaptureEscrowAbi['v1.1'], ...errors] } as const
  let hostile: Address
  let now: bigint
  const call = (c: Call): Hex => encodeFunctionData(c as never)
  const exec = (c: Call): Call => ({
    address: hostile,
    abi: [...hostileAuthCaptureTokenAbi, ...escrow.abi.filter((e) => e.type === 'error')],
    functionName: 'exec',
    args: [call(c)],
  })
  const attack = (c: Call | undefined) =>
    tc.send(stranger, {
      address: hostile,
      abi: hostileAuthCaptureTokenAbi,
      functionName: 'setAttack',
      args: [c ? call(c) : '0x'],
    })
  const read = async () => ({
    attempts: await tc.client.readContract({
      address: hostile,
      abi: hostileAuthCaptureTokenAbi,
      functionName: 'attempts',
    }),
    successes: await tc.client.readContract({
      address: hostile,
      abi: hostileAuthCaptureTokenAbi,
      functionName: 'successes',
    }),
    reason: decodeErrorResult({
      abi: escrow.abi,
      data: await tc.client.readContract({
        address: hostile,
        abi: hostileAuthCaptureTokenAbi,
        functionName: 'lastRevert',
      }),
    }).errorName,
  })
  /** A payment whose token, collector and operator are all the hostile contract. */
  const info = (o: Partial<PaymentInfo> = {}): PaymentInfo => ({
    operator: hostile,
    payer: payer.address,
    receiver: receiver.address,
    token: hostile,
    maxAmount: 10_000n,
    preApprovalExpiry: Number(now) + 3_600,
    authorizationExpiry: Number(now) + 7_200,
    refundExpiry: Number(now) + 10_800,
    minFeeBps: 0,
    maxFeeBps: 0,
    feeReceiver: zeroAddress,
    salt: fresh('hostile'),
    ...o,
  })
  const authorize = (p: PaymentInfo, amount = p.maxAmount): Call => ({
    ...escrow,
    functionName: 'authorize',
    args: [p, amount, hostile, '0x'],
  })
  const stateOf = async (p: PaymentInfo) =>
    tc.client.readContract({
      ...escrow,
      functionName: 'paymentState',
      args: [paymentInfoHash(p, chainId, d.escrow)],
    }) as Promise<readonly [boolean, bigint, bigint]>

  beforeAll(async () => {
    now = await tc.latestTimestamp()
    hostile = await tc.deploy(hostileAuthCaptureTokenAbi, hostileAuthCaptureTokenBytecode(), [d.escrow])
  })

  it('a collector bringing less than the amount is refused', async () => {
    await tc.send(stranger, {
      address: hostile,
      abi: hostileAuthCaptureTokenAbi,
      functionName: 'setShortBy',
      args: [1n],
    })
    await tc.expectRevert(stranger, exec(authorize(info())), 'TokenCollectionFailed')
    await tc.send(stranger, {
      address: hostile,
      abi: hostileAuthCaptureTokenAbi,
      functionName: 'setShortBy',
      args: [0n],
    })
  })

  it('cannot authorize again from inside collectTokens', async () => {
    const p = info()
    await attack(authorize(p))
    await tc.send(stranger, exec(authorize(p)))
    expect(await read()).toEqual({ attempts: 1n, successes: 0n, reason: 'ReentrancyGuardReentrantCall' })
    expect(await stateOf(p)).toEqual([true, 10_000n, 0n])
  })

  it('cannot capture, void or refund again from inside a payout', async () => {
    await attack(undefined)
    const p = info()
    await tc.send(stranger, exec(authorize(p)))
    const capture = (amount: bigint): Call => ({
      ...escrow,
      functionName: 'capture',
      args: [p, amount, 0n, zeroAddress],
    })
    await attack(capture(1_000n))
    await tc.send(stranger, exec(capture(4_000n)))
    expect(await read()).toMatchObject({ attempts: 2n, successes: 0n, reason: 'ReentrancyGuardReentrantCall' })
    await attack({ ...escrow, functionName: 'void', args: [p] })
    await tc.send(stranger, exec(capture(1_000n)))
    expect(await read()).toMatchObject({ attempts: 3n, successes: 0n, reason: 'ReentrancyGuardReentrantCall' })
    expect(await stateOf(p)).toEqual([true, 5_000n, 5_000n])
    expect(
      await tc.client.readContract({
        address: hostile,
        abi: hostileAuthCaptureTokenAbi,
        functionName: 'balanceOf',
        args: [receiver.address],
      }),
    ).toBe(5_000n)
    // Refund liquidity comes from the operator (the hostile contract) through the refund collector.
    await tc.send(stranger, {
      address: hostile,
      abi: hostileAuthCaptureTokenAbi,
      functionName: 'mint',
      args: [hostile, 10_000n],
    })
    await attack({ ...escrow, functionName: 'refund', args: [p, 1_000n, d.operatorRefundCollector, '0x'] })
    await tc.send(
      stranger,
      exec({ ...escrow, functionName: 'refund', args: [p, 2_000n, d.operatorRefundCollector, '0x'] }),
    )
    expect(await read()).toMatchObject({ attempts: 4n, successes: 0n, reason: 'ReentrancyGuardReentrantCall' })
    expect(await stateOf(p)).toEqual([true, 5_000n, 3_000n])
    expect(
      await tc.client.readContract({
        address: hostile,
        abi: hostileAuthCaptureTokenAbi,
        functionName: 'balanceOf',
        args: [payer.address],
      }),
    ).toBe(2_000n)
  })
})

describe.each([AUTH_CAPTURE_V1_1, AUTH_CAPTURE_V1_0])(
  "deadlines on the $version escrow (the chain's clock moved forward)",
  (d) => {
    const escrow = { address: d.escrow, abi: [...authCaptureEscrowAbi[d.version], ...errors] } as const
    const increaseTime = async (seconds: number) => {
      await tc.testClient.increaseTime({ seconds })
      await tc.testClient.mine({ blocks: 1 })
    }

    it('reclaim: refused before the capture deadline and to anyone but the payer; after it, the payer takes the hold back and captures stop', async () => {
      const now = Number(await tc.latestTimestamp())
      const p: PaymentInfo = {
        operator: operator.address,
        payer: payer.address,
        receiver: receiver.address,
        token: usdc.address,
        maxAmount: 8_000n,
        preApprovalExpiry: now + 50,
        authorizationExpiry: now + 100,
        refundExpiry: now + 200,
        minFeeBps: 0,
        maxFeeBps: 0,
        feeReceiver: zeroAddress,
        salt: fresh('deadline'),
      }
      const signature = await payer.signTypedData({
        domain: usdc.domain,
        types: receiveWithAuthorizationTypes,
        primaryType: 'ReceiveWithAuthorization',
        message: {
          from: payer.address,
          to: d.eip3009Collector,
          value: 8_000n,
          validAfter: 0n,
          validBefore: BigInt(p.preApprovalExpiry),
          nonce: signatureNonce(p, chainId, d.escrow),
        },
      })
      await tc.send(operator, {
        ...escrow,
        functionName: 'authorize',
        args: [p, 8_000n, d.eip3009Collector, signature],
      })
      await tc.send(operator, { ...escrow, functionName: 'capture', args: [p, 3_000n, 0, zeroAddress] })
      const reclaim: Call = { ...escrow, functionName: 'reclaim', args: [p] }
      await tc.expectRevert(payer, reclaim, 'BeforeAuthorizationExpiry')

      await increaseTime(100)
      await tc.expectRevert(
        operator,
        { ...escrow, functionName: 'capture', args: [p, 1_000n, 0, zeroAddress] },
        'AfterAuthorizationExpiry',
      )
      await tc.expectRevert(operator, reclaim, 'InvalidSender')
      const payer0 = await balanceOf(tc, usdc, payer.address)
      const r = await tc.send(payer, reclaim)
      expect(parseEventLogs({ abi: escrow.abi as Abi, logs: r.logs, eventName: 'PaymentReclaimed' })).toHaveLength(1)
      expect(await balanceOf(tc, usdc, payer.address)).toBe(payer0 + 5_000n)
      await tc.expectRevert(payer, reclaim, 'ZeroAuthorization')
      await tc.expectRevert(operator, { ...escrow, functionName: 'void', args: [p] }, 'ZeroAuthorization')

      // Refunds stay open until the refund deadline, then close.
      await tc.send(operator, { ...escrow, functionName: 'refund', args: [p, 1_000n, d.operatorRefundCollector, '0x'] })
      await increaseTime(100)
      await tc.expectRevert(
        operator,
        { ...escrow, functionName: 'refund', args: [p, 1_000n, d.operatorRefundCollector, '0x'] },
        'AfterRefundExpiry',
      )
      const [, capturable, refundable] = (await tc.client.readContract({
        ...escrow,
        functionName: 'paymentState',
        args: [paymentInfoHash(p, chainId, d.escrow)],
      })) as readonly [boolean, bigint, bigint]
      expect({ capturable, refundable }).toEqual({ capturable: 0n, refundable: 2_000n })
    })
  },
)
