import type { Address, Hex } from 'viem'
import { BaseError } from '../../errors/index.js'
import { USDC } from '../../networks/registry.js'
import { callJson } from '../http.js'
import { toBaseUnits } from '../units.js'
import { rescaleExact } from './amounts.js'
import { type RfqOrder, type SwapRequestBody, toWireOrder } from './order.js'
import { type SwapSigner, signSwap } from './sign.js'
import type { BaseInfo, ConfirmResult, Nonces, RedeemQuote, SwapAccepted } from './types.js'

export type SwapClientParameters = {
  /** Signs orders and permits; never sends a transaction and needs no ETH. */
  account: SwapSigner
  /** The swap API, e.g. http://127.0.0.1:8420 */
  apiUrl: string
  /** Partner key, sent as x-api-key. */
  apiKey?: string
  /** Seconds an order and its permit stay valid (default 300). */
  deadlineSeconds?: number
}

export type PrepareParameters = {
  in: string
  out: string
  /** Human decimal of the input, e.g. "12.5". */
  amount: string
  /** Redemptions: the quote's minOutBase. Par routes: omitted, the input rescaled. */
  minOutputAmount?: bigint
}

/** The swap settled the transaction that was meant to, but not as hoped: failed, replaced, or lost. */
export class SwapNotIncludedError extends BaseError {
  override name = 'SwapNotIncludedError'
  constructor(readonly result: ConfirmResult) {
    super('SWAP_NOT_INCLUDED', `swap ${result.hash} ${result.status}${'reason' in result ? `: ${result.reason}` : ''}`)
  }
}

/**
 * A partner backend's client for gasless Base swaps: reads /api/base/info, builds and signs the
 * order and its permit locally, submits, and polls for inclusion.
 *
 * @example
 * const parx = createSwapClient({ account, apiUrl, apiKey })
 * const { hash } = await parx.swap({ in: 'USDC', out: 'PUSD', amount: '25' })
 * await parx.waitForInclusion(hash)
 */
export function createSwapClient(p: SwapClientParameters) {
  const headers: Record<string, string> = p.apiKey ? { 'x-api-key': p.apiKey } : {}
  const get = <T>(path: string, query?: Record<string, string>) => callJson<T>(p.apiUrl, path, { headers, query })
  const post = <T>(path: string, body: unknown) => callJson<T>(p.apiUrl, path, { headers, body })
  let infoOnce: Promise<BaseInfo> | undefined

  /** Addresses and domains do not change while the daemon runs; live inventory is re-read by `info(true)`. */
  const info = (fresh = false) => {
    if (fresh || !infoOnce) {
      infoOnce = get<BaseInfo>('/api/base/info')
      infoOnce.catch(() => (infoOnce = undefined))
    }
    return infoOnce
  }

  /** The signed request body, for callers that submit it themselves. */
  async function prepare(x: PrepareParameters): Promise<SwapRequestBody> {
    const [i, nonces] = await Promise.all([info(), get<Nonces>('/api/base/nonces', { owner: p.account.address })])
    const input = tokenOf(i, x.in)
    const output = tokenOf(i, x.out)
    const inputAmount = toBaseUnits(x.amount, input.dec, 'amount')
    const order: RfqOrder = {
      user: p.account.address,
      inputToken: input.addr,
      inputAmount,
      outputToken: output.addr,
      minOutputAmount: x.minOutputAmount ?? rescaleExact(inputAmount, input.dec, output.dec),
      solver: i.solver,
      deadline: BigInt(nonces.chainTime + (p.deadlineSeconds ?? 300)),
      nonce: BigInt(nonces.router),
    }
    const permitNonce = nonces.permit[x.in.toUpperCase()]
    if (permitNonce === undefined)
      throw new BaseError('UNKNOWN_TOKEN', `/api/base/nonces reports no permit nonce for '${x.in}'`)
    const signed = await signSwap(p.account, i, order, BigInt(permitNonce))
    return { user: p.account.address, uiAmount: x.amount, in: x.in, out: x.out, order: toWireOrder(order), ...signed }
  }

  return {
    info,
    prepare,
    quote: (x: { in: string; amount: string }) =>
      get<RedeemQuote>('/api/base/redeem/quote', { in: x.in, amount: x.amount }),
    /** Par swap (partner stable to partner stable) or entry buy (USDC to a partner stable). */
    swap: async (x: { in: string; out: string; amount: string }) =>
      post<SwapAccepted>('/api/base/swap', await prepare(x)),
    /** Partner stable to USDC: quotes, signs the quote's floor, submits; the quote is fetched just before signing. */
    async redeem(x: { in: string; amount: string }) {
      const q = await get<RedeemQuote>('/api/base/redeem/quote', { in: x.in, amount: x.amount })
      const body = await prepare({ in: x.in, out: q.out, amount: x.amount, minOutputAmount: BigInt(q.minOutBase) })
      return { quote: q, ...(await post<SwapAccepted>('/api/base/redeem', body)) }
    },
    confirm: (hash: Hex) => get<ConfirmResult>('/api/base/confirm', { hash }),
    /** Polls /api/base/confirm until the transaction is included; throws SwapNotIncludedError otherwise. */
    async waitForInclusion(hash: Hex, o: { intervalMs?: number; timeoutMs?: number } = {}) {
      const until = Date.now() + (o.timeoutMs ?? 60_000)
      for (;;) {
        const r = await get<ConfirmResult>('/api/base/confirm', { hash })
        if (r.status === 'included') return r
        const waiting = r.status === 'pending' || (r.status === 'dropped' && r.resubmitted)
        if (!waiting || Date.now() > until) throw new SwapNotIncludedError(r)
        await new Promise((res) => setTimeout(res, o.intervalMs ?? 200))
      }
    },
  }
}

export type SwapClient = ReturnType<typeof createSwapClient>

function tokenOf(info: BaseInfo, symbol: string): { addr: Address; dec: number } {
  const sym = symbol.toUpperCase()
  if (sym === USDC) return { addr: info.usdc, dec: info.usdcDec }
  const t = info.out[sym] ?? info.redeemInputs[sym]
  if (!t)
    throw new BaseError(
      'UNKNOWN_TOKEN',
      `/api/base/info has no token '${symbol}'; it has USDC, ${Object.keys(info.out).join(', ')}`,
    )
  return t
}
