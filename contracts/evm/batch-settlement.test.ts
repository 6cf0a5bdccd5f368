import { toClientEvmSigner, toFacilitatorEvmSigner } from '@x402/evm'
import {
  createBatchSettlementEIP3009DepositPayload,
  computeChannelId as officialChannelId,
  signVoucher,
} from '@x402/evm/batch-settlement/client'
import { BatchSettlementEvmScheme as OfficialFacilitator } from '@x402/evm/batch-settlement/facilitator'
import {
  type Abi,
  type Address,
  createWalletClient,
  decodeErrorResult,
  encodeAbiParameters,
  encodeFunctionData,
  type Hex,
  http,
  keccak256,
  maxUint256,
  parseEventLogs,
  publicActions,
  type TransactionReceipt,
  toFunctionSelector,
  toHex,
} from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TOKEN_A, USDC } from '../../src/networks/registry.js'
import { authorizationFields } from '../../src/sdk/eip712.js'
import {
  BATCH_SETTLEMENT_ADDRESS,
  type ChannelConfig,
  channelIdOf,
  claimBatchTypedData,
  depositPermit2WitnessTypes,
  ERC3009_DEPOSIT_COLLECTOR_ADDRESS,
  PERMIT2_DEPOSIT_COLLECTOR_ADDRESS,
  refundTypedData,
  voucherTypedData,
} from '../../src/sdk/x402/evm/batch-settlement/contracts.js'
import { PERMIT2_ADDRESS } from '../../src/sdk/x402/evm/permit2.js'
import * as ERC3009DepositCollector from './artifacts/ERC3009DepositCollector.js'
import * as Multicall3 from './artifacts/Multicall3.js'
import * as Permit2DepositCollector from './artifacts/Permit2DepositCollector.js'
import * as Permit2Lite from './artifacts/Permit2Lite.js'
import * as UsdcToken from './artifacts/UsdcToken.js'
import * as X402BatchSettlement from './artifacts/X402BatchSettlement.js'
import { type Call, MULTICALL3, startTestChain, type TestChain } from './testing/chain.js'
import { hostileTokenAbi, hostileTokenBytecode } from './testing/hostile-token.js'
import { balanceOf, type DeployedToken, deployToken, mint } from './testing/tokens.js'

// Reverts inside the collectors, Permit2 and the token decode by name too.
const errors = [
  ...ERC3009DepositCollector.abi,
  ...Permit2DepositCollector.abi,
  ...Permit2Lite.abi,
  ...UsdcToken.abi,
].filter((e) => e.type === 'error')
const bs = { address: BATCH_SETTLEMENT_ADDRESS, abi: [...X402BatchSettlement.abi, ...errors] } as const

let tc: TestChain
let usdc: DeployedToken
let pusd: DeployedToken
let chainId: number
/** payer (and its voucher key), receiver, receiver authorizer, and a relayer that is none of them. */
let payer: PrivateKeyAccount, receiver: PrivateKeyAccount, authorizer: PrivateKeyAccount, relayer: PrivateKeyAccount
const gas: Record<string, bigint> = {}

beforeAll(async () => {
  tc = await startTestChain()
  chainId = tc.chain.id
  ;({ user: payer, other: receiver, solver: authorizer, deployer: relayer } = tc.accounts)
  for (const [address, bytecode] of [
    [MULTICALL3, Multicall3.deployedBytecode],
    [PERMIT2_ADDRESS, Permit2Lite.deployedBytecode],
    [BATCH_SETTLEMENT_ADDRESS, X402BatchSettlement.deployedBytecode],
    [ERC3009_DEPOSIT_COLLECTOR_ADDRESS, ERC3009DepositCollector.deployedBytecode],
    [PERMIT2_DEPOSIT_COLLECTOR_ADDRESS, Permit2DepositCollector.deployedBytecode],
  ] as const)
    await tc.testClient.setCode({ address, bytecode })
  usdc = await deployToken(tc, USDC)
  pusd = await deployToken(tc, TOKEN_A)
  await mint(tc, usdc, payer.address, 1_000_000_000n)
  await mint(tc, pusd, payer.address, 1_000_000_000n)
  await tc.send(payer, {
    address: pusd.address,
    abi: pusd.abi,
    functionName: 'approve',
    args: [PERMIT2_ADDRESS, maxUint256],
  })
})
afterAll(async () => {
  if (Object.keys(gas).length > 0)
    console.log(
      `batch-settlement gas: ${JSON.stringify(Object.fromEntries(Object.entries(gas).map(([k, v]) => [k, Number(v)])))}`,
    )
  await tc?.stop()
})

let counter = 0
const fresh = (label: string): Hex => keccak256(toHex(`batch-settlement test ${label} ${counter++}`))

/** Every channel config the tests made: what the contract may hold money for. */
const made: ChannelConfig[] = []
const channel = (o: Partial<ChannelConfig> = {}): ChannelConfig => {
  const c = {
    payer: payer.address,
    payerAuthorizer: payer.address,
    receiver: receiver.address,
    receiverAuthorizer: authorizer.address,
    token: usdc.address,
    withdrawDelay: 900,
    salt: fresh('salt'),
    ...o,
  }
  made.push(c)
  return c
}
const idOf = (c: ChannelConfig) => channelIdOf(c, chainId)

async function state(c: ChannelConfig) {
  const id = idOf(c)
  const [balance, totalClaimed] = await tc.client.readContract({ ...bs, functionName: 'channels', args: [id] })
  const nonce = await tc.client.readContract({ ...bs, functionName: 'refundNonce', args: [id] })
  const [withdrawing, initiatedAt] = await tc.client.readContract({
    ...bs,
    functionName: 'pendingWithdrawals',
    args: [id],
  })
  return { balance, totalClaimed, nonce, withdrawing, initiatedAt }
}
const receiverTotals = async (who: Address, token: Address) => {
  const [totalClaimed, totalSettled] = await tc.client.readContract({
    ...bs,
    functionName: 'receivers',
    args: [who, token],
  })
  return { totalClaimed, totalSettled }
}

/** A deposit by ERC-3009 `receiveWithAuthorization` to the collector, nonce bound to the channel, as the official client signs it. */
async function deposit3009(
  c: ChannelConfig,
  amount: bigint,
  o: { signer?: PrivateKeyAccount; boundTo?: Hex } = {},
): Promise<Call> {
  const salt = BigInt(fresh('erc3009'))
  const validBefore = (await tc.latestTimestamp()) + 3600n
  const nonce = keccak256(encodeAbiParameters([{ type: 'bytes32' }, { type: 'uint256' }], [o.boundTo ?? idOf(c), salt]))
  const signature = await (o.signer ?? payer).signTypedData({
    domain: usdc.domain,
    types: { ReceiveWithAuthorization: authorizationFields },
    primaryType: 'ReceiveWithAuthorization',
    message: {
      from: c.payer,
      to: ERC3009_DEPOSIT_COLLECTOR_ADDRESS,
      value: amount,
      validAfter: 0n,
      validBefore,
      nonce,
    },
  })
  const data = encodeAbiParameters(
    [{ type: 'uint256' }, { type: 'uint256' }, { type: 'uint256' }, { type: 'bytes' }],
    [0n, validBefore, salt, signature],
  )
  return { ...bs, functionName: 'deposit', args: [c, amount, ERC3009_DEPOSIT_COLLECTOR_ADDRESS, data] }
}

/** A deposit by Permit2 witness transfer (spender: the Permit2 collector, witness: the channel id). */
async function depositPermit2(c: ChannelConfig, amount: bigint): Promise<Call> {
  const nonce = BigInt(fresh('permit2'))
  const deadline = (await tc.latestTimestamp()) + 3600n
  const signature = await payer.signTypedData({
    domain: { name: 'Permit2', chainId, verifyingContract: PERMIT2_ADDRESS },
    types: depositPermit2WitnessTypes,
    primaryType: 'PermitWitnessTransferFrom',
    message: {
      permitted: { token: c.token, amount },
      spender: PERMIT2_DEPOSIT_COLLECTOR_ADDRESS,
      nonce,
      deadline,
      witness: { channelId: idOf(c) },
    },
  })
  const data = encodeAbiParameters(
    [{ type: 'uint256' }, { type: 'uint256' }, { type: 'bytes' }, { type: 'bytes' }],
    [nonce, deadline, signature, '0x'],
  )
  return { ...bs, functionName: 'deposit', args: [c, amount, PERMIT2_DEPOSIT_COLLECTOR_ADDRESS, data] }
}

type Row = { voucher: { channel: ChannelConfig; maxClaimableAmount: bigint }; signature: Hex; totalClaimed: bigint }
async function row(c: ChannelConfig, max: bigint, totalClaimed = max, signer = payer): Promise<Row> {
  return {
    voucher: { channel: c, maxClaimableAmount: max },
    signature: await signer.signTypedData(voucherTypedData(chainId, idOf(c), max)),
    totalClaimed,
  }
}
async function claimWithSignature(rows: Row[], signer = authorizer): Promise<Call> {
  const entries = rows.map((r) => ({
    channelId: idOf(r.voucher.channel),
    maxClaimableAmount: r.voucher.maxClaimableAmount,
    totalClaimed: r.totalClaimed,
  }))
  return {
    ...bs,
    functionName: 'claimWithSignature',
    args: [rows, await signer.signTypedData(claimBatchTypedData(chainId, entries))],
  }
}
async function refundWithSignature(
  c: ChannelConfig,
  amount: bigint,
  nonce: bigint,
  signer = authorizer,
): Promise<Call> {
  return {
    ...bs,
    functionName: 'refundWithSignature',
    args: [c, amount, nonce, await signer.signTypedData(refundTypedData(chainId, idOf(c), nonce, amount))],
  }
}
const events = (r: TransactionReceipt, eventName: string) =>
  parseEventLogs({ abi: X402BatchSettlement.abi as Abi, logs: r.logs, eventName }) as unknown as Array<{
    args: Record<string, unknown>
  }>
const noteGas = (label: string, r: TransactionReceipt) => (gas[label] = r.gasUsed)

/** A funded channel: `amount` deposited by ERC-3009. */
async function funded(amount: bigint, o: Partial<ChannelConfig> = {}) {
  const c = channel(o)
  await tc.send(relayer, await deposit3009(c, amount))
  return c
}

describe('X402BatchSettlement placed at the canonical address', () => {
  it('hashes channel ids, vouchers and the domain as the official client does', async () => {
    const c = channel()
    expect(await tc.client.readContract({ ...bs, functionName: 'getChannelId', args: [c] })).toBe(
      officialChannelId(c, chainId),
    )
    expect(idOf(c)).toBe(officialChannelId(c, `eip155:${chainId}`))
    const [, name, version, id, verifyingContract] = await tc.client.readContract({
      ...bs,
      functionName: 'eip712Domain',
    })
    expect({ name, version, id, verifyingContract }).toEqual({
      name: 'x402 Batch Settlement',
      version: '1',
      id: BigInt(chainId),
      verifyingContract: BATCH_SETTLEMENT_ADDRESS,
    })
    expect(await tc.client.readContract({ ...bs, functionName: 'MIN_WITHDRAW_DELAY' })).toBe(900)
    expect(await tc.client.readContract({ ...bs, functionName: 'MAX_WITHDRAW_DELAY' })).toBe(2_592_000)
    // Every entry point the official facilitator encodes exists here with the same selector.
    const selectors = new Set(
      (X402BatchSettlement.abi as Abi).filter((e) => e.type === 'function').map((e) => toFunctionSelector(e as never)),
    )
    for (const sig of [
      'multicall(bytes[])',
      'deposit((address,address,address,address,address,uint40,bytes32),uint128,address,bytes)',
      'claim((((address,address,address,address,address,uint40,bytes32),uint128),bytes,uint128)[])',
      'claimWithSignature((((address,address,address,address,address,uint40,bytes32),uint128),bytes,uint128)[],bytes)',
      'settle(address,address)',
      'initiateWithdraw((address,address,address,address,address,uint40,bytes32),uint128)',
      'finalizeWithdraw((address,address,address,address,address,uint40,bytes32))',
      'refund((address,address,address,address,address,uint40,bytes32),uint128)',
      'refundWithSignature((address,address,address,address,address,uint40,bytes32),uint128,uint256,bytes)',
      'getChannelId((address,address,address,address,address,uint40,bytes32))',
      'CHANNEL_CONFIG_TYPEHASH()',
      'channels(bytes32)',
      'pendingWithdrawals(bytes32)',
      'receivers(address,address)',
      'getVoucherDigest(bytes32,uint128)',
      'getRefundDigest(bytes32,uint256,uint128)',
      'refundNonce(bytes32)',
      'getClaimBatchDigest((((address,address,address,address,address,uint40,bytes32),uint128),bytes,uint128)[])',
    ])
      expect(selectors.has(toFunctionSelector(`function ${sig}`)), sig).toBe(true)
  })

  it('deposits by ERC-3009 through the collector: funds the channel once per authorization, ChannelCreated on the first only', async () => {
    const c = channel()
    const before = await balanceOf(tc, usdc, payer.address)
    const first = await deposit3009(c, 10_000n)
    const r = await tc.send(relayer, first)
    noteGas('deposit (ERC-3009)', r)
    expect(events(r, 'ChannelCreated')).toHaveLength(1)
    expect(events(r, 'Deposited')[0]?.args).toMatchObject({
      channelId: idOf(c),
      sender: relayer.address,
      amount: 10_000n,
      newBalance: 10_000n,
    })
    const topUp = await tc.send(relayer, await deposit3009(c, 5_000n))
    expect(events(topUp, 'ChannelCreated')).toHaveLength(0)
    expect((await state(c)).balance).toBe(15_000n)
    expect(await balanceOf(tc, usdc, payer.address)).toBe(before - 15_000n)
    expect(await balanceOf(tc, usdc, ERC3009_DEPOSIT_COLLECTOR_ADDRESS)).toBe(0n)
    // The same authorization cannot fund twice.
    await tc.expectRevert(relayer, first, 'ERC3009UsedAuthorization')
    expect((await state(c)).balance).toBe(15_000n)
  })

  it('refuses an ERC-3009 authorization bound to another channel, or signed by someone else than the payer', async () => {
    const c = channel()
    await tc.expectRevert(
      relayer,
      await deposit3009(c, 1_000n, { boundTo: idOf(channel()) }),
      'ERC3009InvalidSignature',
    )
    await tc.expectRevert(relayer, await deposit3009(c, 1_000n, { signer: relayer }), 'ERC3009InvalidSignature')
    expect((await state(c)).balance).toBe(0n)
  })

  it('deposits any ERC-20 by Permit2 with the channel in the witness', async () => {
    const c = channel({ token: pusd.address })
    const before = await balanceOf(tc, pusd, payer.address)
    const call = await depositPermit2(c, 7_000n)
    const r = await tc.send(relayer, call)
    noteGas('deposit (Permit2)', r)
    expect(events(r, 'ChannelCreated')).toHaveLength(1)
    expect((await state(c)).balance).toBe(7_000n)
    expect(await balanceOf(tc, pusd, payer.address)).toBe(before - 7_000n)
    expect(await balanceOf(tc, pusd, BATCH_SETTLEMENT_ADDRESS)).toBe(7_000n)
    await tc.expectRevert(relayer, call, 'InvalidNonce')
    // A signature presented for another channel fails Permit2's witness check.
    const [, amount, collector, data] = (await depositPermit2(c, 1_000n)).args as [ChannelConfig, bigint, Address, Hex]
    await tc.expectRevert(
      relayer,
      { ...bs, functionName: 'deposit', args: [channel({ token: pusd.address }), amount, collector, data] },
      'InvalidSigner',
    )
  })

  it('lets only the settlement contract call a collector', async () => {
    const data = encodeAbiParameters(
      [{ type: 'uint256' }, { type: 'uint256' }, { type: 'uint256' }, { type: 'bytes' }],
      [0n, 0n, 0n, '0x'],
    )
    for (const address of [ERC3009_DEPOSIT_COLLECTOR_ADDRESS, PERMIT2_DEPOSIT_COLLECTOR_ADDRESS]) {
      const abi =
        address === ERC3009_DEPOSIT_COLLECTOR_ADDRESS ? ERC3009DepositCollector.abi : Permit2DepositCollector.abi
      await tc.expectRevert(
        relayer,
        { address, abi, functionName: 'collect', args: [payer.address, usdc.address, 1n, fresh('id'), data] },
        'OnlyX402BatchSettlement',
      )
    }
  })

  it('bounds the withdraw delay to 15 minutes .. 30 days, and refuses incomplete configs and zero deposits', async () => {
    for (const withdrawDelay of [899, 2_592_001])
      await tc.expectRevert(relayer, await deposit3009(channel({ withdrawDelay }), 1_000n), 'WithdrawDelayOutOfRange')
    for (const withdrawDelay of [900, 2_592_000]) {
      const c = channel({ withdrawDelay })
      await tc.send(relayer, await deposit3009(c, 1_000n))
      expect((await state(c)).balance).toBe(1_000n)
    }
    const zero = '0x0000000000000000000000000000000000000000'
    for (const o of [{ receiverAuthorizer: zero }, { receiver: zero }, { payer: zero }] as const) {
      await tc.expectRevert(relayer, await deposit3009(channel(o), 1_000n), 'InvalidChannel')
    }
    await tc.expectRevert(relayer, await deposit3009(channel(), 0n), 'ZeroDeposit')
  })

  it('claims a voucher relayed with the authorizer signature: accounting only, then settle pays the receiver', async () => {
    const c = await funded(10_000n)
    const totalsBefore = await receiverTotals(receiver.address, usdc.address)
    const r = await tc.send(relayer, await claimWithSignature([await row(c, 3_000n)]))
    noteGas('claimWithSignature (1 channel)', r)
    expect(events(r, 'Claimed')[0]?.args).toMatchObject({
      channelId: idOf(c),
      sender: relayer.address,
      claimAmount: 3_000n,
      newTotalClaimed: 3_000n,
    })
    expect(await state(c)).toMatchObject({ balance: 10_000n, totalClaimed: 3_000n })
    expect((await receiverTotals(receiver.address, usdc.address)).totalClaimed).toBe(totalsBefore.totalClaimed + 3_000n)

    const paidBefore = await balanceOf(tc, usdc, receiver.address)
    const s = await tc.send(relayer, { ...bs, functionName: 'settle', args: [receiver.address, usdc.address] })
    noteGas('settle', s)
    const due = totalsBefore.totalClaimed - totalsBefore.totalSettled + 3_000n
    expect(events(s, 'Settled')[0]?.args).toMatchObject({
      receiver: receiver.address,
      token: usdc.address,
      sender: relayer.address,
      amount: due,
    })
    expect(await balanceOf(tc, usdc, receiver.address)).toBe(paidBefore + due)
    // Nothing more to sweep: a no-op without an event.
    const again = await tc.send(relayer, { ...bs, functionName: 'settle', args: [receiver.address, usdc.address] })
    expect(events(again, 'Settled')).toHaveLength(0)
    expect(await balanceOf(tc, usdc, receiver.address)).toBe(paidBefore + due)
  })

  it('refuses an over-claim, a claim beyond the escrow, a wrong voucher signer and a wrong authorizer signature; replayed or lower vouchers move nothing', async () => {
    const c = await funded(5_000n)
    await tc.expectRevert(relayer, await claimWithSignature([await row(c, 1_000n, 1_001n)]), 'ClaimExceedsCeiling')
    await tc.expectRevert(relayer, await claimWithSignature([await row(c, 6_000n)]), 'ClaimExceedsBalance')
    await tc.expectRevert(
      relayer,
      await claimWithSignature([await row(c, 1_000n, 1_000n, relayer)]),
      'InvalidSignature',
    )
    await tc.expectRevert(relayer, await claimWithSignature([await row(c, 1_000n)], relayer), 'InvalidSignature')
    // A voucher signed for another channel does not verify for this one.
    const other = await row(channel(), 1_000n)
    await tc.expectRevert(
      relayer,
      await claimWithSignature([{ ...other, voucher: { ...other.voucher, channel: c } }]),
      'InvalidSignature',
    )
    expect((await state(c)).totalClaimed).toBe(0n)

    const v2 = await claimWithSignature([await row(c, 2_000n)])
    await tc.send(relayer, v2)
    for (const stale of [v2, await claimWithSignature([await row(c, 1_500n)])]) {
      const r = await tc.send(relayer, stale)
      expect(events(r, 'Claimed')).toHaveLength(0)
    }
    expect((await state(c)).totalClaimed).toBe(2_000n)
  })

  it('claim without a signature only from the receiver side', async () => {
    const c = await funded(5_000n)
    const call = { ...bs, functionName: 'claim', args: [[await row(c, 1_000n)]] }
    await tc.expectRevert(relayer, call, 'NotAuthorizedToClaim')
    await tc.send(receiver, call)
    await tc.send(authorizer, { ...bs, functionName: 'claim', args: [[await row(c, 1_500n)]] })
    expect((await state(c)).totalClaimed).toBe(1_500n)
    await tc.expectRevert(relayer, { ...bs, functionName: 'claim', args: [[]] }, 'EmptyBatch')
  })

  it('claims many channels in one transaction under one authorizer signature, and refuses a batch mixing authorizers', async () => {
    const cs = []
    for (let i = 0; i < 10; i++) cs.push(await funded(1_000n))
    const r = await tc.send(
      relayer,
      await claimWithSignature(await Promise.all(cs.map((c, i) => row(c, BigInt(100 + i))))),
    )
    noteGas('claimWithSignature (10 channels)', r)
    expect(events(r, 'Claimed')).toHaveLength(10)
    for (const [i, c] of cs.entries()) expect((await state(c)).totalClaimed).toBe(BigInt(100 + i))

    const mixed = [
      await row(await funded(1_000n), 10n),
      await row(await funded(1_000n, { receiverAuthorizer: relayer.address }), 10n),
    ]
    await tc.expectRevert(relayer, await claimWithSignature(mixed), 'NotReceiverAuthorizer')
  })

  it('refunds cooperatively: directly by the receiver side, or relayed with a signature for the current nonce', async () => {
    const c = await funded(10_000n)
    await tc.send(relayer, await claimWithSignature([await row(c, 4_000n)]))
    await tc.expectRevert(relayer, { ...bs, functionName: 'refund', args: [c, 1_000n] }, 'NotAuthorizedToRefund')
    const before = await balanceOf(tc, usdc, payer.address)
    const direct = await tc.send(receiver, { ...bs, functionName: 'refund', args: [c, 1_000n] })
    expect(events(direct, 'Refunded')[0]?.args).toMatchObject({ amount: 1_000n })
    expect(await state(c)).toMatchObject({ balance: 9_000n, totalClaimed: 4_000n, nonce: 1n })

    // A signature made for nonce 0 died with the direct refund; nonce 1 works once.
    await tc.expectRevert(relayer, await refundWithSignature(c, 500n, 0n), 'InvalidRefundNonce')
    await tc.expectRevert(relayer, await refundWithSignature(c, 500n, 1n, relayer), 'InvalidSignature')
    const signed = await refundWithSignature(c, 500n, 1n)
    const r = await tc.send(relayer, signed)
    noteGas('refundWithSignature', r)
    await tc.expectRevert(relayer, signed, 'InvalidRefundNonce')
    // More than is unclaimed: capped, so claimed funds stay for the receiver.
    await tc.send(relayer, await refundWithSignature(c, 1_000_000n, 2n))
    expect(await state(c)).toMatchObject({ balance: 4_000n, totalClaimed: 4_000n, nonce: 3n })
    expect(await balanceOf(tc, usdc, payer.address)).toBe(before + 6_000n)
    await tc.expectRevert(receiver, { ...bs, functionName: 'refund', args: [c, 0n] }, 'ZeroRefund')
  })

  it('a refund with nothing unclaimed left advances the nonce without a Refunded event or a transfer', async () => {
    const c = await funded(2_000n)
    await tc.send(relayer, await claimWithSignature([await row(c, 2_000n)]))
    const before = await balanceOf(tc, usdc, payer.address)
    const r = await tc.send(relayer, await refundWithSignature(c, 100n, 0n))
    expect(events(r, 'Refunded')).toHaveLength(0)
    expect(await state(c)).toMatchObject({ balance: 2_000n, totalClaimed: 2_000n, nonce: 1n })
    expect(await balanceOf(tc, usdc, payer.address)).toBe(before)
  })

  it('a full refund of a never-claimed channel closes it; a new deposit creates it again', async () => {
    const c = await funded(3_000n)
    const r = await tc.send(authorizer, { ...bs, functionName: 'refund', args: [c, 3_000n] })
    expect(events(r, 'ChannelClosed')).toHaveLength(1)
    const again = await tc.send(relayer, await deposit3009(c, 1_000n))
    expect(events(again, 'ChannelCreated')).toHaveLength(1)
  })

  it('refund racing a claim: whichever lands first, the claimed amount stays for the receiver and the payer gets the rest', async () => {
    // Claim first, then a refund of "everything": capped at what the claim left.
    const a = await funded(10_000n)
    const claimA = await claimWithSignature([await row(a, 6_000n)])
    const refundA = await refundWithSignature(a, 10_000n, 0n)
    await tc.send(relayer, claimA)
    await tc.send(relayer, refundA)
    expect(await state(a)).toMatchObject({ balance: 6_000n, totalClaimed: 6_000n })
    // Refund first: the escrow is gone, so the late claim fails and moves nothing.
    const b = await funded(10_000n)
    const claimB = await claimWithSignature([await row(b, 6_000n)])
    await tc.send(relayer, await refundWithSignature(b, 10_000n, 0n))
    await tc.expectRevert(relayer, claimB, 'ClaimExceedsBalance')
    expect(await state(b)).toMatchObject({ balance: 0n, totalClaimed: 0n })
  })

  it('the contract always holds what it owes', async () => {
    // After all the above (deposits, claims, refunds, closes), its USDC is exactly every channel's
    // unclaimed escrow plus every receiver's claimed-but-unsettled total: not a unit short, not a unit stranded.
    const owed = async () => {
      const usdcChannels = made.filter((c) => c.token === usdc.address)
      let sum = 0n
      for (const c of usdcChannels) {
        const s = await state(c)
        sum += s.balance - s.totalClaimed
      }
      for (const who of new Set(usdcChannels.map((c) => c.receiver))) {
        const t = await receiverTotals(who, usdc.address)
        sum += t.totalClaimed - t.totalSettled
      }
      return sum
    }
    const held = () => balanceOf(tc, usdc, BATCH_SETTLEMENT_ADDRESS)
    expect((await receiverTotals(receiver.address, usdc.address)).totalClaimed).toBeGreaterThan(
      (await receiverTotals(receiver.address, usdc.address)).totalSettled,
    )
    expect(await held()).toBe(await owed())
    // Settling pays the claims out of what it holds, and the rest still backs the escrow.
    await tc.send(relayer, { ...bs, functionName: 'settle', args: [receiver.address, usdc.address] })
    const totals = await receiverTotals(receiver.address, usdc.address)
    expect(totals.totalClaimed).toBe(totals.totalSettled)
    expect(await owed()).toBeGreaterThan(0n)
    expect(await held()).toBe(await owed())
  })
})

describe('reentrancy through a hostile token', () => {
  let hostile: Address
  let c: ChannelConfig
  const attack = async (call: Call) =>
    tc.send(relayer, {
      address: hostile,
      abi: hostileTokenAbi,
      functionName: 'setAttack',
      args: [encodeFunctionData(call as never)],
    })
  const read = async () => ({
    attempts: await tc.client.readContract({ address: hostile, abi: hostileTokenAbi, functionName: 'attempts' }),
    successes: await tc.client.readContract({ address: hostile, abi: hostileTokenAbi, functionName: 'successes' }),
    reason: decodeErrorResult({
      abi: X402BatchSettlement.abi,
      data: await tc.client.readContract({ address: hostile, abi: hostileTokenAbi, functionName: 'lastRevert' }),
    }).errorName,
  })
  const depositCall = (amount: bigint): Call => ({ ...bs, functionName: 'deposit', args: [c, amount, hostile, '0x'] })

  beforeAll(async () => {
    hostile = await tc.deploy(hostileTokenAbi, hostileTokenBytecode(), [BATCH_SETTLEMENT_ADDRESS])
    // The token is its own collector and the channel's receiver, so it may claim and refund.
    c = channel({ token: hostile, receiver: hostile })
  })

  it('a collector bringing less than the deposit is refused', async () => {
    await tc.send(relayer, { address: hostile, abi: hostileTokenAbi, functionName: 'setShortBy', args: [1n] })
    await tc.expectRevert(relayer, depositCall(1_000n), 'DepositCollectionFailed')
    await tc.send(relayer, { address: hostile, abi: hostileTokenAbi, functionName: 'setShortBy', args: [0n] })
  })

  it('cannot deposit again from inside collect', async () => {
    await attack(depositCall(1n))
    await tc.send(relayer, depositCall(10_000n))
    expect(await read()).toEqual({ attempts: 1n, successes: 0n, reason: 'ReentrancyGuardReentrantCall' })
    expect((await state(c)).balance).toBe(10_000n)
  })

  it('cannot settle twice or refund again from inside the payout', async () => {
    await attack({ ...bs, functionName: 'settle', args: [hostile, hostile] })
    await tc.send(relayer, await claimWithSignature([await row(c, 4_000n)]))
    await tc.send(relayer, { ...bs, functionName: 'settle', args: [hostile, hostile] })
    expect(await read()).toMatchObject({ attempts: 2n, successes: 0n, reason: 'ReentrancyGuardReentrantCall' })
    expect(
      await tc.client.readContract({
        address: hostile,
        abi: hostileTokenAbi,
        functionName: 'balanceOf',
        args: [hostile],
      }),
    ).toBe(4_000n)

    await attack({ ...bs, functionName: 'refund', args: [c, 1_000n] })
    await tc.send(authorizer, { ...bs, functionName: 'refund', args: [c, 1_000n] })
    expect(await read()).toMatchObject({ attempts: 3n, successes: 0n, reason: 'ReentrancyGuardReentrantCall' })
    expect(await state(c)).toMatchObject({ balance: 9_000n, totalClaimed: 4_000n, nonce: 1n })
    expect(
      await tc.client.readContract({
        address: hostile,
        abi: hostileTokenAbi,
        functionName: 'balanceOf',
        args: [BATCH_SETTLEMENT_ADDRESS],
      }),
    ).toBe(5_000n)
  })
})

describe('the official @x402/evm facilitator against this contract', () => {
  it('verifies and settles a deposit, a voucher, a claim, a settle and a refund built by the official client', async () => {
    const network = `eip155:${chainId}` as const
    const wallet = createWalletClient({
      account: relayer,
      chain: tc.chain,
      transport: http(tc.anvil.rpcUrl),
      pollingInterval: 50,
    }).extend(publicActions)
    const facilitator = new OfficialFacilitator(
      toFacilitatorEvmSigner(Object.assign(wallet, { address: relayer.address }) as never),
      authorizer as never,
    )
    const buyer = toClientEvmSigner(payer, tc.client as never)
    const req = {
      scheme: 'batch-settlement',
      network,
      amount: '1000',
      asset: usdc.address,
      payTo: receiver.address,
      maxTimeoutSeconds: 3600,
      extra: {
        receiverAuthorizer: authorizer.address,
        withdrawDelay: 900,
        name: usdc.domain.name,
        version: usdc.domain.version,
      },
    }
    const c = channel()
    const id = officialChannelId(c, network)
    const paid = (payload: unknown) =>
      ({ x402Version: 2, accepted: req, payload, resource: { url: 'http://127.0.0.1/x' } }) as never

    const deposit = await createBatchSettlementEIP3009DepositPayload(buyer, 2, req as never, c, '100000', '1000')
    expect(await facilitator.verify(paid(deposit.payload), req as never)).toMatchObject({ isValid: true })
    const settled = await facilitator.settle(paid(deposit.payload), req as never)
    expect(settled).toMatchObject({ success: true })
    expect((await state(c)).balance).toBe(100_000n)

    const voucher = await signVoucher(buyer, id, '3000', network)
    expect(await facilitator.verify(paid({ type: 'voucher', channelConfig: c, voucher }), req as never)).toMatchObject({
      isValid: true,
    })
    const forged = { ...voucher, maxClaimableAmount: '4000' }
    expect(
      await facilitator.verify(paid({ type: 'voucher', channelConfig: c, voucher: forged }), req as never),
    ).toMatchObject({ isValid: false })

    const claims = [
      { voucher: { channel: c, maxClaimableAmount: '3000' }, signature: voucher.signature, totalClaimed: '3000' },
    ]
    expect(await facilitator.settle(paid({ type: 'claim', claims }), req as never)).toMatchObject({ success: true })
    expect((await state(c)).totalClaimed).toBe(3_000n)
    const paidBefore = await balanceOf(tc, usdc, receiver.address)
    const swept = await facilitator.settle(
      paid({ type: 'settle', receiver: receiver.address, token: usdc.address }),
      req as never,
    )
    expect(swept).toMatchObject({ success: true })
    expect(await balanceOf(tc, usdc, receiver.address)).toBeGreaterThanOrEqual(paidBefore + 3_000n)

    const zeroCharge = await signVoucher(buyer, id, '3000', network)
    const payerBefore = await balanceOf(tc, usdc, payer.address)
    const refund = {
      type: 'refund',
      channelConfig: c,
      voucher: zeroCharge,
      amount: '40000',
      refundNonce: '0',
      claims: [],
    }
    expect(await facilitator.settle(paid(refund), req as never)).toMatchObject({ success: true })
    expect(await state(c)).toMatchObject({ balance: 60_000n, totalClaimed: 3_000n, nonce: 1n })
    expect(await balanceOf(tc, usdc, payer.address)).toBe(payerBefore + 40_000n)
  })
})

describe('timed withdrawal', () => {
  const increaseTime = async (seconds: number) => {
    await tc.testClient.increaseTime({ seconds })
    await tc.testClient.mine({ blocks: 1 })
  }

  it('only the payer side starts it, for at most the unclaimed escrow, and finalizes after the delay', async () => {
    const c = await funded(10_000n)
    await tc.send(relayer, await claimWithSignature([await row(c, 2_000n)]))
    await tc.expectRevert(relayer, { ...bs, functionName: 'initiateWithdraw', args: [c, 1_000n] }, 'InvalidChannel')
    await tc.expectRevert(
      payer,
      { ...bs, functionName: 'initiateWithdraw', args: [c, 8_001n] },
      'WithdrawAmountExceedsAvailable',
    )
    await tc.expectRevert(payer, { ...bs, functionName: 'initiateWithdraw', args: [c, 0n] }, 'NothingToWithdraw')
    await tc.expectRevert(payer, { ...bs, functionName: 'finalizeWithdraw', args: [c] }, 'WithdrawalNotPending')
    const r = await tc.send(payer, { ...bs, functionName: 'initiateWithdraw', args: [c, 8_000n] })
    expect(events(r, 'WithdrawInitiated')).toHaveLength(1)
    await tc.expectRevert(payer, { ...bs, functionName: 'initiateWithdraw', args: [c, 1n] }, 'WithdrawalAlreadyPending')
    await tc.expectRevert(payer, { ...bs, functionName: 'finalizeWithdraw', args: [c] }, 'WithdrawDelayNotElapsed')
    await increaseTime(900)
    await tc.expectRevert(
      relayer,
      { ...bs, functionName: 'finalizeWithdraw', args: [c] },
      'NotAuthorizedToFinalizeWithdraw',
    )
    const before = await balanceOf(tc, usdc, payer.address)
    const f = await tc.send(payer, { ...bs, functionName: 'finalizeWithdraw', args: [c] })
    expect(events(f, 'WithdrawFinalized')[0]?.args).toMatchObject({ amount: 8_000n })
    expect(await balanceOf(tc, usdc, payer.address)).toBe(before + 8_000n)
    expect(await state(c)).toMatchObject({ balance: 2_000n, totalClaimed: 2_000n, withdrawing: 0n, initiatedAt: 0 })
  })

  it('withdrawal racing a claim: a claim during the delay keeps its funds, the withdrawal takes only what is left', async () => {
    const c = await funded(10_000n)
    await tc.send(payer, { ...bs, functionName: 'initiateWithdraw', args: [c, 10_000n] })
    await tc.send(relayer, await claimWithSignature([await row(c, 7_000n)]))
    await increaseTime(901)
    const before = await balanceOf(tc, usdc, payer.address)
    const f = await tc.send(payer, { ...bs, functionName: 'finalizeWithdraw', args: [c] })
    expect(events(f, 'WithdrawFinalized')[0]?.args).toMatchObject({ amount: 3_000n })
    expect(events(f, 'ChannelClosed')).toHaveLength(0)
    expect(await balanceOf(tc, usdc, payer.address)).toBe(before + 3_000n)
    expect(await state(c)).toMatchObject({ balance: 7_000n, totalClaimed: 7_000n })
    // A claim too late (after finalize) finds no escrow.
    await tc.expectRevert(relayer, await claimWithSignature([await row(c, 8_000n)]), 'ClaimExceedsBalance')
  })

  it('a cooperative refund shrinks a pending withdrawal, and cancels it when it covers it; draining a never-claimed channel closes it', async () => {
    const c = await funded(10_000n)
    await tc.send(payer, { ...bs, functionName: 'initiateWithdraw', args: [c, 6_000n] })
    await tc.send(receiver, { ...bs, functionName: 'refund', args: [c, 2_000n] })
    expect(await state(c)).toMatchObject({ balance: 8_000n, withdrawing: 4_000n })
    await tc.send(receiver, { ...bs, functionName: 'refund', args: [c, 4_000n] })
    expect(await state(c)).toMatchObject({ balance: 4_000n, withdrawing: 0n, initiatedAt: 0 })

    const d = await funded(5_000n)
    await tc.send(payer, { ...bs, functionName: 'initiateWithdraw', args: [d, 5_000n] })
    await increaseTime(900)
    const f = await tc.send(payer, { ...bs, functionName: 'finalizeWithdraw', args: [d] })
    expect(events(f, 'ChannelClosed')).toHaveLength(1)
    expect((await state(d)).balance).toBe(0n)
  })
})
