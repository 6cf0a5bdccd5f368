import { type Address, getAddress, type Hex, isAddress, type TypedDataDefinition, toHex } from 'viem'
import { BaseError } from '../../../errors/base.js'
import type { EvmAuthorizationPayload, PaymentRequirements } from '../types.js'
import { permitTypedData, type TokenDomain, transferWithAuthorizationTypedData } from './typed-data.js'

/** Anything that signs EIP-712 for an address: a viem account, or a wallet client's account. */
export type TypedDataSigner = { address: Address; signTypedData(td: TypedDataDefinition): Promise<Hex> }

const nowSeconds = () => BigInt(Math.floor(Date.now() / 1000))

function domainOf(r: PaymentRequirements, chainId: number): TokenDomain {
  const { name, version } = r.extra
  if (typeof name !== 'string' || typeof version !== 'string') {
    throw new BaseError(
      'SELLER_TERMS_MALFORMED',
      `payment requirements for ${r.asset} lack extra.name and extra.version (the token's EIP-712 domain)`,
    )
  }
  return { name, version, chainId, verifyingContract: getAddress(r.asset) }
}

/**
 * An erc2612 payment: an EIP-2612 permit letting the facilitator's signer (`extra.spender`) pull
 * the price until the deadline. `nonce` is the token's `nonces(owner)`: permits of one payer are
 * used in order, so sign the next one only once the previous one settled.
 */
export async function signErc2612Payment(p: {
  signer: TypedDataSigner
  requirements: PaymentRequirements
  chainId: number
  nonce: bigint
  now?: bigint
}): Promise<EvmAuthorizationPayload> {
  const r = p.requirements
  const spender = r.extra.spender
  if (typeof spender !== 'string' || !isAddress(spender))
    throw new BaseError(
      'SELLER_TERMS_MALFORMED',
      'erc2612 payment requirements lack extra.spender (the facilitator signer the permit names)',
    )
  const deadline = (p.now ?? nowSeconds()) + BigInt(r.maxTimeoutSeconds)
  const value = BigInt(r.amount)
  const signature = await p.signer.signTypedData(
    permitTypedData(domainOf(r, p.chainId), {
      owner: p.signer.address,
      spender: getAddress(spender),
      value,
      nonce: p.nonce,
      deadline,
    }) as TypedDataDefinition,
  )
  return {
    signature,
    authorization: {
      from: p.signer.address,
      to: getAddress(r.payTo),
      value: value.toString(),
      validAfter: '0',
      validBefore: deadline.toString(),
      nonce: p.nonce.toString(),
      spender: getAddress(spender),
    },
  }
}

/** An eip3009 payment, as the reference client signs it: transferWithAuthorization with a random nonce. */
export async function signEip3009Payment(p: {
  signer: TypedDataSigner
  requirements: PaymentRequirements
  chainId: number
  now?: bigint
}): Promise<EvmAuthorizationPayload> {
  const r = p.requirements
  const validBefore = (p.now ?? nowSeconds()) + BigInt(r.maxTimeoutSeconds)
  const nonce = toHex(crypto.getRandomValues(new Uint8Array(32)))
  const message = {
    from: p.signer.address,
    to: getAddress(r.payTo),
    value: BigInt(r.amount),
    validAfter: 0n,
    validBefore,
    nonce,
  }
  const signature = await p.signer.signTypedData(
    transferWithAuthorizationTypedData(domainOf(r, p.chainId), message) as TypedDataDefinition,
  )
  return {
    signature,
    authorization: {
      from: message.from,
      to: message.to,
      value: r.amount,
      validAfter: '0',
      validBefore: validBefore.toString(),
      nonce,
    },
  }
}
