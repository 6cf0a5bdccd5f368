import type { IncomingMessage } from 'node:http'
import type { EvmChain } from '../chains/evm/chain.js'
import type { EndpointRow } from './endpoints.js'

/** One endpoint's MPP terms: the challenge for a 402, and validate / settle of a credential. */
export type MppGate = {
  /** The `WWW-Authenticate: Payment ...` value for an unpaid request. */
  challenge(req: IncomingMessage): Promise<string | undefined>
  /** Checks the credential (signature, terms, our facilitator's /verify) without moving money. */
  validate(credential: string): Promise<{ ok: true } | { ok: false; reason: string }>
  /** Settles through our facilitator (/settle); the `Payment-Receipt` header value and the transaction, or why not. */
  settle(
    credential: string,
  ): Promise<{ ok: true; receipt: string; transaction: string } | { ok: false; reason: string }>
}

/**
 * The most endpoints whose gate is kept. Each holds two stock mppx servers once used (tens of KB
 * to a few hundred each: 200 endpoints paid once and deleted grew the daemon by 55-96 MB when
 * nothing was ever dropped); past the bound the least recently used goes and is rebuilt on its
 * next request, which costs one mppx.create.
 */
export const MAX_MPP_GATES = 500

// A Map iterates in insertion order: re-inserted on every use, the least recently used is first.
const gates = new Map<string, { terms: string; gate: MppGate }>()

/** Drops an endpoint's gates (every platform key): called when it is deleted, so nothing of it stays. */
export function forgetMppGates(endpointId: string): void {
  for (const key of gates.keys()) if (key.startsWith(`${endpointId} `)) gates.delete(key)
}

/** How many gates are kept now (tests of the bound). */
export const mppGatesKept = (): number => gates.size

/**
 * mppx, with its own zod and ox (about 1 MB of modules, 0.7 s to load), is loaded when a paid
 * endpoint first answers, not when the daemon starts (issue 26: start-up).
 */
let mppxModules: Promise<{ Receipt: typeof import('mppx').Receipt } & typeof import('mppx/server')> | undefined
const loadMppx = () =>
  (mppxModules ??= Promise.all([import('mppx'), import('mppx/server')]).then(([core, server]) => ({
    ...server,
    Receipt: core.Receipt,
  })))

/**
 * Older HMAC keys still accepted beside an issuing one (daemon/platform/wallet-seal.ts
 * `mppSecrets`): challenges issued before the HKDF derivation or under a previous platform key stay
 * valid until they expire, 5 minutes after they were issued.
 */
const accepted = new Map<string, readonly string[]>()
export function acceptMppSecrets(issuing: string, older: readonly string[]): void {
  accepted.set(issuing, older)
}

type ChargeTerms = {
  realm: string
  currency: `0x${string}`
  chainId: number
  decimals: number
  authorization: { name: string; version: string }
  recipient: `0x${string}`
  facilitatorUrl: string
}

/** The stock mppx servers of one endpoint: the issuing key's and the older keys'. */
async function mppxServers(t: ChargeTerms, secret: string, older: readonly string[]) {
  const { Mppx, evm } = await loadMppx()
  const server = (secretKey: string) =>
    Mppx.create({
      secretKey,
      realm: t.realm,
      methods: [
        evm.charge({
          currency: t.currency,
          chainId: t.chainId,
          decimals: t.decimals,
          authorization: t.authorization,
          recipient: t.recipient,
          x402: { facilitator: t.facilitatorUrl },
        }),
      ],
    })
  return { mppx: server(secret), older: older.map(server) }
}
type MppxServer = Awaited<ReturnType<typeof mppxServers>>['mppx']

/**
 * MPP (`WWW-Authenticate: Payment`, mppx's `evm` charge) for a seller endpoint, through a stock
 * mppx server whose settlement is our facilitator (x402 /verify and /settle with an EIP-3009
 * authorization). Only tokens with EIP-3009 can be paid this way (USDC); for others undefined. The
 * challenge is HMAC-bound with `secret` to this endpoint's realm, price, token and payTo, so a
 * credential for another endpoint or price never validates here. Unlike mppx's one-call handler
 * (which settles before the route runs), validate and settle are separate: the platform settles
 * only after the upstream answered, so a failing upstream is never charged.
 */
export function mppGate(p: {
  endpoint: EndpointRow
  chain: EvmChain
  facilitatorUrl: string
  secret: string
}): MppGate | undefined {
  const e = p.endpoint
  const token = p.chain.tokens[e.token]
  if (!token?.eip3009 || !token.permitDomain) return undefined
  const realm = `parx-paid-${e.id}`
  const terms: ChargeTerms = {
    realm,
    currency: token.address,
    chainId: p.chain.chainId,
    decimals: token.decimals,
    authorization: token.permitDomain,
    recipient: e.pay_to as `0x${string}`,
    facilitatorUrl: p.facilitatorUrl,
  }
  // By secret too: one process may hold daemons of different platform keys (tests do).
  const cacheKey = `${e.id} ${p.secret}`
  // A gate is reused only for the terms it was built with: a changed row (price, payTo, token, name) gets a new one in
  // its place.
  const termsKey = JSON.stringify([terms, e.price, e.name ?? null])
  const cached = gates.get(cacheKey)
  if (cached) gates.delete(cacheKey)
  if (cached?.terms === termsKey) {
    gates.set(cacheKey, cached)
    return cached.gate
  }
  // Built on first use, once mppx is loaded; the older keys as they are then.
  let servers: ReturnType<typeof mppxServers> | undefined
  const built = () => (servers ??= mppxServers(terms, p.secret, accepted.get(p.secret) ?? []))
  // A credential is HMAC-checked before anything else, so a key that did not issue it refuses it at
  // once, before any verify or settle: trying the older keys after the issuing one cannot pay twice.
  // The error told is the one of the key that issued the challenge, when one did.
  const notIssuedHere = (err: unknown) =>
    /not issued by this server/.test(String((err as { reason?: string }).reason ?? (err as Error).message))
  const firstAccepting = async <T>(use: (m: MppxServer) => Promise<T>): Promise<T> => {
    const { mppx, older } = await built()
    try {
      return await use(mppx)
    } catch (err) {
      if (!notIssuedHere(err)) throw err
      for (const m of older) {
        try {
          return await use(m)
        } catch (e) {
          if (!notIssuedHere(e)) throw e
        }
      }
      throw err
    }
  }
  const route = { amount: e.price, ...(e.name ? { description: e.name } : {}) }
  const why = (err: unknown) => String((err as { reason?: string }).reason ?? (err as Error).message ?? err)
  const gate: MppGate = {
    async challenge(req) {
      // Only the method and URL: payment headers of another protocol must not reach mppx's own x402 path.
      const request = new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`, { method: req.method })
      const { mppx } = await built()
      const result = await mppx.charge(route)(request)
      return result.status === 402 ? (result.challenge.headers.get('www-authenticate') ?? undefined) : undefined
    },
    async validate(credential) {
      try {
        await firstAccepting((m) => m.validateCredential(credential, { request: route, realm }))
        return { ok: true }
      } catch (err) {
        return { ok: false, reason: why(err) }
      }
    },
    async settle(credential) {
      try {
        const receipt = await firstAccepting((m) => m.broadcastCredential(credential, { request: route, realm }))
        const { Receipt } = await loadMppx()
        return { ok: true, receipt: Receipt.serialize(receipt), transaction: receipt.reference }
      } catch (err) {
        return { ok: false, reason: why(err) }
      }
    },
  }
  gates.set(cacheKey, { terms: termsKey, gate })
  if (gates.size > MAX_MPP_GATES) gates.delete(gates.keys().next().value!)
  return gate
}
