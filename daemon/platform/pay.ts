import { erc20Abi, getAddress, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { BaseError } from '../../src/errors/index.js'
import { networks } from '../../src/networks/registry.js'
import { sendableTokens } from '../../src/sdk/platform/networks.js'
import type { PayAnswer, Price } from '../../src/sdk/platform/pay.js'
import { fromBaseUnits, toBaseUnits } from '../../src/sdk/units.js'
import { canPay, signPayment } from '../../src/sdk/x402/client/payer.js'
import type { PaymentRequired, PaymentRequiredV1, PaymentRequirements, SettleResponse } from '../../src/sdk/x402/types.js'
import { decodeHeader, encodeHeader, headers as x402Headers, isRecord } from '../../src/sdk/x402/wire.js'
import type { EvmChain } from '../chains/evm/chain.js'
import { checkSpend, microsToUsd, remainingMicros, usdMicros } from './limits.js'
import type { SpendsLedger } from './spends.js'
import { policyOf, type AgentRow } from './store.js'

export type PayDeps = { chain: EvmChain; spends: SpendsLedger; walletKey(agent: AgentRow): Hex; timeoutMs?: number }
export type PayRequest = { url: string; method: string; headers: Record<string, string>; body?: string; maxAmount?: string; dryRun: boolean }

/** How long the seller may take on each request before the payment is abandoned. */
const DEFAULT_TIMEOUT_MS = 30_000

/**
 * POST /api/agents/:id/pay, x402 (v2 header, v1 body). The price comes from the seller's 402; the
 * platform picks an offer on the agent's network in one of its tokens, checks maxAmount, reserves
 * the amount against the limits (host allow-list included) before signing, pays with the agent's
 * wallet and retries once. A refused payment or a failed seller that did not settle releases the
 * reservation and says `charged: false`; a settlement reported by the seller confirms it.
 * MPP challenges are not paid by this build (SELLER_METHOD_UNSUPPORTED).
 */
export async function payForAgent(d: PayDeps, agent: AgentRow, req: PayRequest): Promise<PayAnswer> {
  const timeout = d.timeoutMs ?? DEFAULT_TIMEOUT_MS
  const host = new URL(req.url).hostname.toLowerCase()
  const init = (extra: Record<string, string> = {}): RequestInit => ({
    method: req.method, headers: { ...req.headers, ...extra }, body: req.body, redirect: 'manual', signal: AbortSignal.timeout(timeout),
  })
  const first = await sellerFetch(req.url, init(), false)
  if (first.status !== 402) {
    if (req.dryRun) return { dryRun: true, price: null, withinLimits: true, remainingTodayUsd: await remaining(d, agent) }
    return { dryRun: false, ...(await passThrough(first)), receipt: null }
  }
  const terms = await readTerms(first)
  const network = networks[agent.network]!
  const tokens = sendableTokens(network).flatMap((t) => (d.chain.tokens[t.symbol] ? [d.chain.tokens[t.symbol]!] : []))
  const signer = privateKeyToAccount(d.walletKey(agent))
  const keys = { evm: { signer, clients: [d.chain.client] } }
  const chosen = terms.accepts.find((r) => r.network === network.caip2 && tokens.some((t) => same(t.address, r.asset)) && canPay(keys, r))
  if (!chosen) {
    const offered = terms.accepts.map((r) => `${r.network} ${r.asset}`).join(', ') || 'nothing'
    throw new BaseError('SELLER_METHOD_UNSUPPORTED', `the seller asks for ${offered}; this agent pays on ${network.key} (${network.caip2}) in ${tokens.map((t) => t.symbol).join(', ')}; nothing was paid`)
  }
  const token = tokens.find((t) => same(t.address, chosen.asset))!
  let raw: bigint
  try {
    raw = BigInt(chosen.amount)
    if (raw <= 0n) throw new Error('not positive')
  } catch {
    throw new BaseError('SELLER_TERMS_MALFORMED', `the seller's amount '${chosen.amount}' is not a positive integer of base units; nothing was paid`)
  }
  const amount = fromBaseUnits(raw, token.decimals)
  const price: Price = { protocol: terms.protocol, amount, token: token.symbol, network: network.key, payTo: chosen.payTo }
  if (req.maxAmount !== undefined && raw > toBaseUnits(req.maxAmount, token.decimals)) {
    throw new BaseError('PRICE_ABOVE_MAX', `the seller asks ${amount} ${token.symbol}, above maxAmount ${req.maxAmount}; nothing was paid`)
  }
  const amountMicros = usdMicros(amount, token.decimals)
  if (req.dryRun) {
    let withinLimits = true
    try {
      checkSpend(policyOf(agent), { amountMicros, spentTodayMicros: await d.spends.spentToday(agent.id), host })
    } catch {
      withinLimits = false
    }
    return { dryRun: true, price, withinLimits, remainingTodayUsd: await remaining(d, agent) }
  }

  const spend = await d.spends.reserve({ agentId: agent.id, kind: 'pay', amountMicros, token: token.symbol, amount, recipient: chosen.payTo, host })
  const payer = getAddress(agent.address)
  const nonceBefore = await permitNonce(d, token.address, payer)
  let paid: Response
  try {
    const payload = await signPayment(keys, chosen)
    const message = terms.protocol === 'x402-v1'
      ? { x402Version: 1, scheme: chosen.scheme, network: terms.v1Network!.get(chosen)!, payload }
      : { x402Version: 2, accepted: chosen, payload, resource: terms.resource }
    paid = await sellerFetch(req.url, init({ [terms.protocol === 'x402-v1' ? x402Headers.v1Payment : x402Headers.signature]: encodeHeader(message) }), true)
  } catch (e) {
    // No answer after the payment was sent: whether it settled shows in the permit nonce.
    const charged = e instanceof SellerUnreachable && (await permitNonce(d, token.address, payer)) !== nonceBefore
    if (!charged) await d.spends.release(spend.id, (e as Error).message)
    if (e instanceof BaseError && !(e instanceof SellerUnreachable)) throw e
    throw new BaseError('SELLER_FAILED', `${(e as Error).message}; ${charged ? 'the payment was settled' : 'nothing was charged'}`, { fields: { charged, transaction: null } })
  }
  const settlement = decodeHeader<SettleResponse>(paid.headers.get(x402Headers.response) ?? paid.headers.get(x402Headers.v1Response))
  const transaction = settlement?.success && /^0x[0-9a-fA-F]{64}$/.test(settlement.transaction) ? (settlement.transaction as Hex) : null
  if (!transaction) {
    await d.spends.release(spend.id, `seller answered ${paid.status} without a settlement`)
    const code = paid.status === 402 ? 'PAYMENT_REFUSED' : 'SELLER_FAILED'
    const why = paid.status === 402 ? `the seller refused the payment (${settlement?.errorReason ?? (await reason(paid))})` : `the seller answered ${paid.status} after the payment was offered`
    throw new BaseError(code, `${why}; nothing was charged`, { fields: { charged: false, transaction: null } })
  }
  await d.spends.confirm(spend.id, { tx: transaction })
  return { dryRun: false, ...(await passThrough(paid)), receipt: { ...price, transaction, payer } }
}

class SellerUnreachable extends BaseError {}

async function sellerFetch(url: string, init: RequestInit, afterPayment: boolean): Promise<Response> {
  try {
    return await fetch(url, init)
  } catch (e) {
    const timedOut = (e as Error).name === 'TimeoutError'
    const what = timedOut ? 'the seller did not answer in time' : `the seller could not be reached (${(e as Error).message})`
    if (!afterPayment) throw new BaseError('SELLER_FAILED', `${what}; nothing was paid`, { fields: { charged: false, transaction: null }, cause: e })
    throw new SellerUnreachable('SELLER_FAILED', what, { cause: e })
  }
}

type Terms = { protocol: 'x402-v2' | 'x402-v1'; accepts: PaymentRequirements[]; resource?: unknown; v1Network?: Map<PaymentRequirements, string> }

async function readTerms(res: Response): Promise<Terms> {
  const header = res.headers.get(x402Headers.required)
  if (header) {
    const v2 = decodeHeader<PaymentRequired>(header)
    if (!v2 || v2.x402Version !== 2 || !Array.isArray(v2.accepts) || !v2.accepts.every(validRequirement)) {
      throw new BaseError('SELLER_TERMS_MALFORMED', `the seller's ${x402Headers.required} header cannot be read as x402 v2 terms; nothing was paid`)
    }
    return { protocol: 'x402-v2', accepts: v2.accepts, resource: v2.resource }
  }
  const body = (await res.json().catch(() => undefined)) as unknown
  if (isRecord(body) && body.x402Version === 1 && Array.isArray(body.accepts)) {
    const v1 = body as PaymentRequiredV1
    if (!v1.accepts.every((r) => isRecord(r) && typeof r.maxAmountRequired === 'string' && typeof r.network === 'string')) {
      throw new BaseError('SELLER_TERMS_MALFORMED', "the seller's x402 v1 terms cannot be read; nothing was paid")
    }
    const v1Network = new Map<PaymentRequirements, string>()
    const accepts = v1.accepts.map((r) => {
      const caip2 = Object.values(networks).find((n) => n.legacyName === r.network)?.caip2 ?? r.network
      const req = { ...r, network: caip2, amount: r.maxAmountRequired } as unknown as PaymentRequirements
      v1Network.set(req, r.network)
      return req
    })
    if (!accepts.every(validRequirement)) throw new BaseError('SELLER_TERMS_MALFORMED', "the seller's x402 v1 terms cannot be read; nothing was paid")
    return { protocol: 'x402-v1', accepts, v1Network }
  }
  if (/^\s*Payment\b/i.test(res.headers.get('www-authenticate') ?? '')) {
    throw new BaseError('SELLER_METHOD_UNSUPPORTED', 'the seller asks for an MPP payment, which this platform build does not pay yet; nothing was paid')
  }
  throw new BaseError('SELLER_TERMS_MALFORMED', 'the seller answered 402 without x402 terms (no PAYMENT-REQUIRED header, no x402 v1 body); nothing was paid')
}

const validRequirement = (r: unknown): r is PaymentRequirements =>
  isRecord(r) && typeof r.scheme === 'string' && typeof r.network === 'string' && typeof r.asset === 'string' &&
  typeof r.amount === 'string' && typeof r.payTo === 'string' && isRecord(r.extra ?? {})

async function passThrough(res: Response) {
  const buf = Buffer.from(await res.arrayBuffer())
  const type = res.headers.get('content-type') ?? ''
  const text = /^(text\/|application\/(json|xml|javascript)|[^;]*\+json)/i.test(type) || type === ''
  const headers: Record<string, string> = {}
  res.headers.forEach((v, k) => (headers[k] = v))
  return { status: res.status, headers, body: text ? buf.toString('utf8') : buf.toString('base64'), bodyEncoding: (text ? 'utf8' : 'base64') as 'utf8' | 'base64' }
}

async function reason(res: Response): Promise<string> {
  const v2 = decodeHeader<PaymentRequired>(res.headers.get(x402Headers.required))
  return v2?.error ?? `status ${res.status}`
}

async function remaining(d: PayDeps, agent: AgentRow): Promise<string | null> {
  const r = remainingMicros(policyOf(agent), await d.spends.spentToday(agent.id))
  return r === null ? null : microsToUsd(r)
}

async function permitNonce(d: PayDeps, token: Hex, owner: Hex): Promise<bigint | undefined> {
  const abi = [...erc20Abi, { type: 'function', name: 'nonces', stateMutability: 'view', inputs: [{ type: 'address' }], outputs: [{ type: 'uint256' }] }] as const
  return d.chain.client.readContract({ address: token, abi, functionName: 'nonces', args: [owner] }).catch(() => undefined)
}

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase()
