import { type Abi, type Address, type Hex, keccak256, maxUint256, parseUnits, toHex } from 'viem'
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'
import { LOCAL_SOLANA_GENESIS, TOKEN_A, USDC } from '../../../src/networks/registry.js'
import {
  chainRef,
  type Delivery,
  deliveryTypes,
  type EvmOrder,
  evmOrderDelivery,
  evmOrderId,
  evmOrderTypes,
  evmParty,
  solParty,
  sourceEscrowDomain,
  verifierDomain,
} from '../../xchain/statement.js'
import * as AttestationVerifierMofN from '../artifacts/AttestationVerifierMofN.js'
import * as OutputSettler from '../artifacts/OutputSettler.js'
import * as PermitToken from '../artifacts/PermitToken.js'
import * as SourceEscrow from '../artifacts/SourceEscrow.js'
import { type Call, startTestChain } from './chain.js'
import { type SplitSignature, signPermit } from './sign.js'
import { balanceOf, type DeployedToken, deployToken, mint } from './tokens.js'

/**
 * SourceEscrow reverts with the verifier's errors as they bubble up from `verifyDelivery`, so calls
 * to it are decoded with both contracts' errors.
 */
export const escrowAbi = [
  ...SourceEscrow.abi,
  ...AttestationVerifierMofN.abi.filter((e) => e.type === 'error'),
] as unknown as Abi

/** Deterministic keys, so a failure reproduces. */
export const testKey = (label: string) => privateKeyToAccount(keccak256(toHex(`parx xchain test ${label}`)))

/** A Solana key as the destination parties are (the bytes only matter as 32 opaque bytes here). */
const solKey = (label: string) => solParty(new Uint8Array(Buffer.from(keccak256(toHex(label)).slice(2), 'hex')))

/** 10 USDC (6 decimals) locked on Base for 10 PUSD (9 decimals on Solana) delivered at par. */
export const INPUT = 10_000_000n
export const OUTPUT = 10_000_000_000n

/**
 * A chain with the three cross-chain contracts as local-base deploys them: the verifier owned by
 * the deployer with three attestors and threshold 2, the escrow bound to it, the output settler; a
 * user holding 1 000 USDC and PUSD, a solver holding 1 000 000 of each with unlimited allowance to
 * the output settler.
 */
export async function setupXchain() {
  const tc = await startTestChain()
  const { deployer, solver, user } = tc.accounts
  const attestors = [0, 1, 2].map((i) => testKey(`attestor ${i}`))
  const usdc = await deployToken(tc, USDC)
  const pusd = await deployToken(tc, TOKEN_A)
  const verifier = await tc.deploy(AttestationVerifierMofN.abi, AttestationVerifierMofN.bytecode, [
    deployer.address,
    attestors.map((a) => a.address),
    2n,
  ])
  const escrow = await tc.deploy(SourceEscrow.abi, SourceEscrow.bytecode, [verifier])
  const settler = await tc.deploy(OutputSettler.abi, OutputSettler.bytecode, [])
  for (const t of [usdc, pusd]) {
    await mint(tc, t, user.address, parseUnits('1000', t.decimals))
    await mint(tc, t, solver.address, parseUnits('1000000', t.decimals))
    await tc.send(solver, {
      address: t.address,
      abi: PermitToken.abi,
      functionName: 'approve',
      args: [settler, maxUint256],
    })
  }
  const chainId = tc.chain.id
  const destChain = chainRef(`solana:${LOCAL_SOLANA_GENESIS}`)
  let nextNonce = 1n

  /** A fresh order (new nonce) of `user`: fill deadline in 10 minutes, expiry in 20. */
  async function makeOrder(overrides: Partial<EvmOrder> = {}): Promise<EvmOrder> {
    const now = Number(await tc.latestTimestamp())
    return {
      user: user.address,
      inputToken: usdc.address,
      inputAmount: INPUT,
      destChain,
      outputToken: solKey('pusd mint'),
      outputAmount: OUTPUT,
      recipient: solKey('recipient'),
      fillDeadline: now + 600,
      expires: now + 1200,
      nonce: nextNonce++,
      ...overrides,
    }
  }

  const orderId = (order: EvmOrder): Hex => evmOrderId(order, chainId, escrow)

  const signOrder = (signer: PrivateKeyAccount, order: EvmOrder): Promise<Hex> =>
    signer.signTypedData({
      domain: sourceEscrowDomain(chainId, escrow),
      types: evmOrderTypes,
      primaryType: 'Order',
      message: order,
    })

  const permitNonce = (t: DeployedToken, who: Address) =>
    tc.client.readContract({ address: t.address, abi: PermitToken.abi, functionName: 'nonces', args: [who] })

  /** The owner's EIP-2612 permit of the order's input to the escrow. */
  async function permitFor(
    owner: PrivateKeyAccount,
    order: EvmOrder,
    token: DeployedToken = usdc,
  ): Promise<SplitSignature & { deadline: bigint }> {
    const deadline = BigInt(order.fillDeadline)
    const sig = await signPermit(owner, token.domain, {
      spender: escrow,
      value: order.inputAmount,
      nonce: await permitNonce(token, owner.address),
      deadline,
    })
    return { ...sig, deadline }
  }

  /** Each signer's attestation of `delivery`, in the order given. */
  const attest = (signers: PrivateKeyAccount[], delivery: Delivery): Promise<Hex[]> =>
    Promise.all(
      signers.map((a) =>
        a.signTypedData({
          domain: verifierDomain(chainId, verifier),
          types: deliveryTypes,
          primaryType: 'Delivery',
          message: delivery,
        }),
      ),
    )

  /** What two attestors sign for a delivery of `order` credited to `solverParty`. */
  const quorum = (order: EvmOrder, solverParty: Hex = evmParty(solver.address)) =>
    attest(attestors.slice(0, 2), evmOrderDelivery(order, orderId(order), solverParty))

  const escrowCall = (functionName: string, args: readonly unknown[]): Call => ({
    address: escrow,
    abi: escrowAbi,
    functionName,
    args,
  })
  const calls = {
    approve: (t: DeployedToken = usdc, amount = maxUint256): Call => ({
      address: t.address,
      abi: PermitToken.abi,
      functionName: 'approve',
      args: [escrow, amount],
    }),
    open: (order: EvmOrder) => escrowCall('open', [order]),
    openFor: (order: EvmOrder, userSig: Hex, p: SplitSignature & { deadline: bigint }) =>
      escrowCall('openFor', [order, userSig, p.deadline, p.v, p.r, p.s]),
    claim: (order: EvmOrder, solverParty: Hex, signatures: Hex[]) =>
      escrowCall('claim', [order, solverParty, signatures]),
    refund: (order: EvmOrder) => escrowCall('refund', [order]),
  }

  const STATUS = ['None', 'Deposited', 'Claimed', 'Refunded'] as const
  async function status(order: EvmOrder): Promise<(typeof STATUS)[number]> {
    const s = await tc.client.readContract({
      address: escrow,
      abi: SourceEscrow.abi,
      functionName: 'orderStatus',
      args: [orderId(order)],
    })
    return STATUS[s]!
  }

  /** Opens `order` directly as its user (approving first), returning the receipt. */
  async function openAsUser(order: EvmOrder) {
    await tc.send(user, calls.approve(order.inputToken === pusd.address ? pusd : usdc, order.inputAmount))
    return tc.send(user, calls.open(order))
  }

  /** Token balances of every test account and the escrow: what a rejected call must leave alone. */
  async function snapshot(extra: Record<string, Address> = {}): Promise<Record<string, bigint>> {
    const out: Record<string, bigint> = {}
    const who: Record<string, Address> = {
      escrow,
      ...Object.fromEntries(Object.entries(tc.accounts).map(([k, a]) => [k, a.address])),
      ...extra,
    }
    for (const [name, a] of Object.entries(who))
      for (const t of [usdc, pusd]) out[`${t.symbol} ${name}`] = await balanceOf(tc, t, a)
    return out
  }

  /** Makes the next block carry exactly `timestamp` and mines it, so reads and simulations see it. */
  async function mineAt(timestamp: number): Promise<void> {
    await tc.testClient.setNextBlockTimestamp({ timestamp: BigInt(timestamp) })
    await tc.testClient.mine({ blocks: 1 })
  }

  return {
    tc,
    usdc,
    pusd,
    verifier,
    escrow,
    settler,
    attestors,
    destChain,
    chainId,
    makeOrder,
    orderId,
    signOrder,
    permitFor,
    attest,
    quorum,
    calls,
    status,
    openAsUser,
    snapshot,
    mineAt,
  }
}

export type XchainFixture = Awaited<ReturnType<typeof setupXchain>>
