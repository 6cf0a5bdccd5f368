import { randomBytes } from 'node:crypto'
import {
  type Address,
  encodeAbiParameters,
  getAddress,
  type Hex,
  keccak256,
  type TypedDataDefinition,
  toHex,
} from 'viem'
import { receiveWithAuthorizationTypes } from '../../../eip712.js'
import type { TypedDataSigner } from '../sign.js'
import { type ChannelConfig, ERC3009_DEPOSIT_COLLECTOR_ADDRESS, voucherTypedData } from './contracts.js'

export type Voucher = { channelId: Hex; maxClaimableAmount: string; signature: Hex }

/** A voucher for `cumulative` base units: what the receiver may claim from the channel in total, ever. */
export async function signVoucher(
  signer: TypedDataSigner,
  chainId: number,
  channelId: Hex,
  cumulative: bigint,
): Promise<Voucher> {
  const signature = await signer.signTypedData(voucherTypedData(chainId, channelId, cumulative) as TypedDataDefinition)
  return { channelId, maxClaimableAmount: cumulative.toString(), signature }
}

/**
 * A deposit payload as the official client builds it (`@x402/evm/batch-settlement/client`, eip3009):
 * an ERC-3009 ReceiveWithAuthorization to the deposit collector with nonce
 * keccak256(abi.encode(channelId, salt)), and the first voucher. `nonce` and `validBefore` tell
 * from the chain alone whether the deposit happened (the token's authorizationState).
 */
export async function signDeposit(p: {
  signer: TypedDataSigner
  chainId: number
  token: { address: Address; name: string; version: string }
  config: ChannelConfig
  channelId: Hex
  amount: bigint
  cumulative: bigint
  validSeconds: number
}): Promise<{ payload: Record<string, unknown>; nonce: Hex; validBefore: bigint }> {
  const salt = toHex(randomBytes(32))
  const validBefore = BigInt(Math.floor(Date.now() / 1000) + p.validSeconds)
  const nonce = keccak256(encodeAbiParameters([{ type: 'bytes32' }, { type: 'uint256' }], [p.channelId, BigInt(salt)]))
  const signature = await p.signer.signTypedData({
    domain: {
      name: p.token.name,
      version: p.token.version,
      chainId: p.chainId,
      verifyingContract: getAddress(p.token.address),
    },
    types: receiveWithAuthorizationTypes,
    primaryType: 'ReceiveWithAuthorization',
    message: {
      from: p.signer.address,
      to: ERC3009_DEPOSIT_COLLECTOR_ADDRESS,
      value: p.amount,
      validAfter: 0n,
      validBefore,
      nonce,
    },
  } as TypedDataDefinition)
  const voucher = await signVoucher(p.signer, p.chainId, p.channelId, p.cumulative)
  const payload = {
    type: 'deposit',
    channelConfig: p.config,
    voucher,
    deposit: {
      amount: p.amount.toString(),
      authorization: {
        erc3009Authorization: { validAfter: '0', validBefore: validBefore.toString(), salt, signature },
      },
    },
  }
  return { payload, nonce, validBefore }
}
