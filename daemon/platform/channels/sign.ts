import { randomBytes } from 'node:crypto'
import { encodeAbiParameters, getAddress, keccak256, toHex, type Hex } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'
import { ERC3009_DEPOSIT_COLLECTOR_ADDRESS, voucherTypedData, type ChannelConfig } from '../../../src/sdk/x402/evm/batch-settlement/contracts.js'
import type { EvmToken } from '../../chains/evm/chain.js'
import type { PaymentProof } from '../pay/proof.js'
import { receiveWithAuthorizationTypes } from '../../../src/sdk/eip712.js'

export type Voucher = { channelId: Hex; maxClaimableAmount: string; signature: Hex }

/** A voucher for `cumulative` base units: what the receiver may claim from the channel in total, ever. */
export async function signVoucher(signer: PrivateKeyAccount, chainId: number, channelId: Hex, cumulative: bigint): Promise<Voucher> {
  const signature = await signer.signTypedData(voucherTypedData(chainId, channelId, cumulative))
  return { channelId, maxClaimableAmount: cumulative.toString(), signature }
}

/**
 * A deposit payload as the official client builds it (`@x402/evm/batch-settlement/client`, eip3009):
 * an ERC-3009 ReceiveWithAuthorization to the deposit collector with nonce
 * keccak256(abi.encode(channelId, salt)), and the first voucher. The proof lets the platform tell
 * from the chain alone whether the deposit happened (daemon/platform/pay/proof.ts).
 */
export async function signDeposit(p: {
  signer: PrivateKeyAccount; chainId: number; token: EvmToken; config: ChannelConfig; channelId: Hex; amount: bigint; cumulative: bigint; validSeconds: number
}): Promise<{ payload: Record<string, unknown>; proof: PaymentProof }> {
  const salt = toHex(randomBytes(32))
  const validBefore = BigInt(Math.floor(Date.now() / 1000) + p.validSeconds)
  const nonce = keccak256(encodeAbiParameters([{ type: 'bytes32' }, { type: 'uint256' }], [p.channelId, BigInt(salt)]))
  const signature = await p.signer.signTypedData({
    domain: { name: p.token.permitDomain!.name, version: p.token.permitDomain!.version, chainId: p.chainId, verifyingContract: getAddress(p.token.address) },
    types: receiveWithAuthorizationTypes,
    primaryType: 'ReceiveWithAuthorization',
    message: { from: p.signer.address, to: ERC3009_DEPOSIT_COLLECTOR_ADDRESS, value: p.amount, validAfter: 0n, validBefore, nonce },
  })
  const voucher = await signVoucher(p.signer, p.chainId, p.channelId, p.cumulative)
  const payload = {
    type: 'deposit',
    channelConfig: p.config,
    voucher,
    deposit: { amount: p.amount.toString(), authorization: { erc3009Authorization: { validAfter: '0', validBefore: validBefore.toString(), salt, signature } } },
  }
  return { payload, proof: { kind: 'eip3009', token: p.token.address, from: p.signer.address, nonce, validBefore } }
}
