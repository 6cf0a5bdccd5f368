import { getAddress, type PublicClient } from 'viem'
import { BaseError } from '../../../errors/base.js'
import { networks } from '../../../networks/registry.js'
import { tokenAbi } from '../evm/calls.js'
import { signEip3009Payment, signErc2612Payment, type TypedDataSigner } from '../evm/sign.js'
import { evmChainId } from '../evm/typed-data.js'
import { createSplPayload, type MessageSigner } from '../svm/delegated-spl.js'
import { createSplUptoPayload } from '../svm/upto.js'
import { EXACT, methods, type PaymentRequirements, UPTO } from '../types.js'

/**
 * The keys a buyer pays with. EVM: any EIP-712 signer, plus public clients by chain to read permit
 * nonces (erc2612). Solana: any ed25519 message signer (a Keypair via keypairSigner, or a wallet).
 */
export type PayerKeys = {
  evm?: { signer: TypedDataSigner; clients: PublicClient[] }
  solana?: { signer: MessageSigner }
}

/** A CAIP-2 id or a v1 legacy name -> CAIP-2, through the network registry. */
export function caip2Of(network: string): string {
  return Object.values(networks).find((n) => n.legacyName === network)?.caip2 ?? network
}

/** Which method a requirement asks for; EVM defaults to eip3009 like the reference client. */
export function methodOf(r: PaymentRequirements): string {
  const atm = r.extra.assetTransferMethod
  if (typeof atm === 'string') return atm
  return caip2Of(r.network).startsWith('solana:') ? methods.svmTransaction : methods.eip3009
}

/** Whether these keys can pay this requirement: `exact`, and on Solana also `upto` (metered, over delegated-spl). */
export function canPay(keys: PayerKeys, r: PaymentRequirements): boolean {
  const m = methodOf(r)
  const net = caip2Of(r.network)
  const scheme = r.scheme ?? EXACT
  if (net.startsWith('eip155:'))
    return (
      !!keys.evm &&
      scheme === EXACT &&
      (m === methods.eip3009 || (m === methods.erc2612 && typeof r.extra.spender === 'string'))
    )
  if (net.startsWith('solana:'))
    return !!keys.solana && (scheme === EXACT || scheme === UPTO) && m === methods.delegatedSpl
  return false
}

/** Signs the scheme payload (`payload` of a PaymentPayload) for one requirement; `r.amount` in base units. */
export async function signPayment(keys: PayerKeys, r: PaymentRequirements): Promise<Record<string, unknown>> {
  const net = caip2Of(r.network)
  const m = methodOf(r)
  if (net.startsWith('solana:') && keys.solana && m === methods.delegatedSpl) {
    // upto: `r.amount` is the maximum; the upto message keeps the signature from paying an exact offer.
    return r.scheme === UPTO ? createSplUptoPayload(keys.solana.signer, r) : createSplPayload(keys.solana.signer, r)
  }
  const chainId = evmChainId(net)
  if (!keys.evm || chainId === undefined)
    throw new BaseError('SELLER_METHOD_UNSUPPORTED', `no key to pay on ${r.network}`)
  const signer = keys.evm.signer
  if (m === methods.eip3009) return signEip3009Payment({ signer, requirements: r, chainId })
  if (m !== methods.erc2612)
    throw new BaseError('SELLER_METHOD_UNSUPPORTED', `assetTransferMethod '${m}' is not one this client signs`)
  const client = keys.evm.clients.find((c) => c.chain?.id === chainId)
  if (!client)
    throw new BaseError(
      'SELLER_METHOD_UNSUPPORTED',
      `no public client for chain ${chainId} to read the permit nonce from`,
    )
  const nonce = await client.readContract({
    address: getAddress(r.asset),
    abi: tokenAbi,
    functionName: 'nonces',
    args: [signer.address],
  })
  return signErc2612Payment({ signer, requirements: r, chainId, nonce })
}
