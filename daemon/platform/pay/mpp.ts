import { Challenge, Receipt } from 'mppx'
import { evm } from 'mppx/client'
import { challengeHash } from 'mppx/evm'
import { getAddress } from 'viem'
import { BaseError } from '../../../src/errors/index.js'
import { amountOf } from './x402.js'
import { isTxHash, sameAddress, type Offered, type Quote, type QuoteContext } from './quote.js'

/** mppx's EVM charge: method `evm`, intent `charge`, paid with an EIP-3009 authorization. */
const EVM = 'evm'
const CHARGE = 'charge'

type EvmChargeRequest = {
  amount: string
  currency: string
  recipient: string
  methodDetails: { chainId: number; credentialTypes?: string[]; splits?: unknown[] }
}

/**
 * MPP terms of a 402 (`WWW-Authenticate: Payment ...`, IETF draft "The Payment HTTP Authentication
 * Scheme"), read with mppx. Payable here: the `evm` method's `charge` intent on the agent's chain in
 * one of its tokens that implements EIP-3009, signed with mppx's own client (the credential is an
 * EIP-3009 authorization whose nonce is the challenge's hash). Other methods (tempo, stripe,
 * sessions...) are listed as offered and not paid.
 */
export function mppQuotes(c: QuoteContext, header: string | null): Offered | undefined {
  if (!header || !/(^|,)\s*Payment\s/i.test(header)) return undefined
  let challenges: Challenge.Challenge[]
  try {
    challenges = Challenge.deserializeList(header)
  } catch (e) {
    throw new BaseError('SELLER_TERMS_MALFORMED', `the seller's WWW-Authenticate Payment challenge cannot be read (${(e as Error).message}); nothing was paid`)
  }
  const quotes: Quote[] = []
  const offered: string[] = []
  for (const challenge of challenges) {
    const r = challenge.request as unknown as EvmChargeRequest
    offered.push(challenge.method === EVM ? `mpp ${EVM}/${challenge.intent} on eip155:${r.methodDetails?.chainId} in ${r.currency}` : `mpp ${challenge.method}/${challenge.intent}`)
    if (challenge.method !== EVM || challenge.intent !== CHARGE || r.methodDetails?.chainId !== c.chain.chainId) continue
    if (!r.methodDetails.credentialTypes?.includes('authorization') || r.methodDetails.splits?.length) continue
    const token = c.tokens.find((t) => sameAddress(t.address, r.currency) && t.eip3009 && t.permitDomain)
    if (!token) continue
    quotes.push({
      protocol: 'mpp', token, raw: amountOf(r.amount), payTo: getAddress(r.recipient),
      async sign() {
        const method = evm.charge({ account: c.signer, authorization: token.permitDomain! })
        const credential = await method.createCredential({ challenge: challenge as never, context: {} })
        const nonce = challengeHash(challenge)
        return {
          headers: { [Challenge.credentialHeader(challenge)]: credential },
          proof: { kind: 'eip3009', token: token.address, from: c.signer.address, nonce },
        }
      },
      settlement(res) {
        const header = res.headers.get('payment-receipt')
        if (!header) return { transaction: null }
        try {
          const receipt = Receipt.deserialize(header)
          return isTxHash(receipt.reference) ? { transaction: receipt.reference } : { transaction: null, reason: `receipt reference ${receipt.reference}` }
        } catch {
          return { transaction: null, reason: 'unreadable Payment-Receipt' }
        }
      },
    })
  }
  return { quotes, offered }
}
