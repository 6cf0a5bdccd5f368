import type { Challenge } from 'mppx'
import { getAddress, type Hex } from 'viem'
import { BaseError } from '../../../src/errors/index.js'
import { isTxHash, type Offered, type Quote, type QuoteContext, sameAddress, validitySeconds } from './quote.js'
import { amountOf } from './x402.js'

/** mppx's EVM charge: method `evm`, intent `charge`, paid with an EIP-3009 authorization. */
const EVM = 'evm'
const CHARGE = 'charge'

/** mppx (about 1 MB of modules with its own zod and ox) loads on the first MPP challenge read, not at start. */
let mppxModules: Promise<typeof import('mppx') & typeof import('mppx/evm')> | undefined
const loadMppx = () =>
  (mppxModules ??= Promise.all([import('mppx'), import('mppx/evm')]).then(([core, evm]) => ({ ...core, ...evm })))

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
export async function mppQuotes(c: QuoteContext, header: string | null): Promise<Offered | undefined> {
  if (!header || !/(^|,)\s*Payment\s/i.test(header)) return undefined
  const mppx = await loadMppx()
  const { Challenge, Receipt, challengeHash } = mppx
  let challenges: Challenge.Challenge[]
  try {
    challenges = Challenge.deserializeList(header)
  } catch (e) {
    throw new BaseError(
      'SELLER_TERMS_MALFORMED',
      `the seller's WWW-Authenticate Payment challenge cannot be read (${(e as Error).message}); nothing was paid`,
    )
  }
  const quotes: Quote[] = []
  const offered: string[] = []
  for (const challenge of challenges) {
    const r = challenge.request as unknown as EvmChargeRequest
    offered.push(
      challenge.method === EVM
        ? `mpp ${EVM}/${challenge.intent} on eip155:${r.methodDetails?.chainId} in ${r.currency}`
        : `mpp ${challenge.method}/${challenge.intent}`,
    )
    if (challenge.method !== EVM || challenge.intent !== CHARGE || r.methodDetails?.chainId !== c.chain.chainId)
      continue
    if (!r.methodDetails.credentialTypes?.includes('authorization') || r.methodDetails.splits?.length) continue
    const token = c.tokens.find((t) => sameAddress(t.address, r.currency) && t.eip3009 && t.permitDomain)
    if (!token) continue
    quotes.push({
      protocol: 'mpp',
      token,
      raw: amountOf(r.amount),
      payTo: getAddress(r.recipient),
      async sign() {
        const validBefore = mppValidBefore(challenge.expires, c.maxValiditySeconds)
        const credential = await authorizationCredential(mppx, c, challenge, r, token.permitDomain!, validBefore)
        return {
          headers: { [Challenge.credentialHeader(challenge)]: credential },
          proof: {
            kind: 'eip3009',
            token: token.address,
            from: c.signer.address,
            nonce: challengeHash(challenge),
            validBefore,
          },
        }
      },
      settlement(res) {
        const header = res.headers.get('payment-receipt')
        if (!header) return { transaction: null }
        try {
          const receipt = Receipt.deserialize(header)
          return isTxHash(receipt.reference)
            ? { transaction: receipt.reference }
            : { transaction: null, reason: `receipt reference ${receipt.reference}` }
        } catch {
          return { transaction: null, reason: 'unreadable Payment-Receipt' }
        }
      },
    })
  }
  return { quotes, offered }
}

/**
 * The authorization's validBefore (unix seconds): the challenge's `expires`, at most the cap from
 * now. mppx's own client signs until `expires`, however far the seller set it; the mppx server
 * checks only that validBefore has not passed, so an earlier one pays the same challenge.
 */
export function mppValidBefore(expires: string | undefined, cap: number, nowMs = Date.now()): bigint {
  const now = Math.floor(nowMs / 1000)
  const until = expires === undefined ? NaN : Math.floor(new Date(expires).getTime() / 1000)
  // A challenge already expired is signed as such (the seller refuses it; nothing usable is handed over).
  if (Number.isFinite(until) && until <= now) return BigInt(until)
  return BigInt(now + validitySeconds(Number.isFinite(until) ? until - now : undefined, cap))
}

/**
 * The `authorization` credential exactly as mppx's evm charge client builds it (mppx/evm/client
 * Charge.js: same EIP-712 message, payload and source), with `validBefore` given instead of taken
 * from the challenge's `expires`.
 */
async function authorizationCredential(
  mppx: Awaited<ReturnType<typeof loadMppx>>,
  c: QuoteContext,
  challenge: Challenge.Challenge,
  r: EvmChargeRequest,
  domain: { name: string; version: string },
  validBefore: bigint,
): Promise<string> {
  const { authorizationDomain, authorizationTypes, challengeHash, Credential, toSource } = mppx
  const from = getAddress(c.signer.address)
  const to = getAddress(r.recipient)
  const nonce = challengeHash(challenge)
  const chainId = r.methodDetails.chainId
  const signature = await c.signer.signTypedData({
    domain: authorizationDomain({ authorization: domain, chainId, currency: r.currency as Hex }),
    message: { from, nonce, to, validAfter: 0n, validBefore, value: BigInt(r.amount) },
    primaryType: 'TransferWithAuthorization',
    types: authorizationTypes,
  })
  const payload = {
    from,
    nonce,
    signature,
    to,
    type: 'authorization',
    validAfter: '0',
    validBefore: validBefore.toString(),
    value: r.amount,
  }
  return Credential.serialize(Credential.from({ challenge, payload, source: toSource({ address: from, chainId }) }))
}
