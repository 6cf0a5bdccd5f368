import type { Hex, LocalAccount } from 'viem'
import { callJson } from '../http.js'
import { xchainPaths } from './paths.js'
import type { EvmOriginBuilt, EvmOriginSubmitted, TypedDataJson } from './wire.js'

/** Where the parx API is and the partner key it takes (x-api-key). */
export type XchainApi = { apiUrl: string; apiKey?: string }

/** Anything that signs typed data locally: a viem private-key, mnemonic or HD account. */
export type EvmOriginSigner = Pick<LocalAccount, 'address' | 'signTypedData'>

/** The evm-origin build request without `user` (the signer is the user). */
export type EvmOriginOrderRequest = { inSym: string; outSym: string; uiAmount: string; recipientSol: string }

export type BuildSignSubmitEvmOriginReturnType = {
  orderId: `0x${string}`
  built: EvmOriginBuilt
  submitted: EvmOriginSubmitted
}

/**
 * Typed data from the API (uint256 as decimal strings) as viem signs it (bigints): every field
 * whose type is an integer wider than 48 bits becomes a bigint; the digest is the same.
 */
export function typedDataForViem<P extends string>(td: TypedDataJson<P>) {
  const fields = td.types[td.primaryType] ?? []
  const message: Record<string, unknown> = {}
  for (const f of fields) {
    const v = td.message[f.name]
    const bits = /^u?int(\d+)$/.exec(f.type)?.[1]
    message[f.name] = bits && Number(bits) > 48 && v !== undefined ? BigInt(v) : v
  }
  return { domain: td.domain, types: td.types, primaryType: td.primaryType, message } as Parameters<
    EvmOriginSigner['signTypedData']
  >[0]
}

/**
 * Opens a Base -> Solana order gaslessly in one call: builds it for the signer's wallet, signs the
 * order and the input token's permit (no transaction, no ETH needed), and submits both for the
 * solver to relay. Then poll `GET /api/xchain/status/:orderId?rail=evm-origin`.
 *
 * @example
 * const { orderId } = await buildSignSubmitEvmOrigin({ apiUrl, apiKey }, account, {
 *   inSym: 'USDC', outSym: 'USDC', uiAmount: '25', recipientSol: 'Fk4...base58',
 * })
 */
export async function buildSignSubmitEvmOrigin(
  api: XchainApi,
  signer: EvmOriginSigner,
  req: EvmOriginOrderRequest,
): Promise<BuildSignSubmitEvmOriginReturnType> {
  const headers: Record<string, string> = api.apiKey ? { 'x-api-key': api.apiKey } : {}
  const built = await callJson<EvmOriginBuilt>(api.apiUrl, xchainPaths.evmBuild, {
    headers,
    body: { user: signer.address, ...req },
  })
  const [orderSignature, permitSignature] = (await Promise.all([
    signer.signTypedData(typedDataForViem(built.gasless.order)),
    signer.signTypedData(typedDataForViem(built.gasless.permit)),
  ])) as [Hex, Hex]
  const submitted = await callJson<EvmOriginSubmitted>(api.apiUrl, built.gasless.submit, {
    headers,
    body: { orderId: built.orderId, orderSignature, permitSignature },
  })
  return { orderId: built.orderId, built, submitted }
}
