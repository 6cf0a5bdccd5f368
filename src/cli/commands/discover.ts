import { Command } from 'commander'
import type { CliContext } from '../context.js'
import type { Payer, Seller, TokenBook } from '../discover/listing.js'
import { CliError } from '../errors.js'
import {
  type CommandResult,
  decimalArg,
  httpUrlArg,
  ok,
  type PlatformDeps,
  platformAction,
  spinning,
  tokenArg,
  uuidArg,
} from './platform-shared.js'

export type DiscoverOptions = {
  query?: string
  facilitator?: string
  network?: string
  token?: string
  maxPrice?: string
  agent?: string
}

export type DiscoverResult = {
  facilitator: string
  /** The agent the sellers were checked against; null when no agent is known (then `payable` is null). */
  agent: { id: string; network: string } | null
  sellers: Seller[]
  /** Resources read from the listing, and those skipped for not being in the bazaar's shape. */
  scanned: number
  skipped: number
  /** The listing had more than the pages read (MAX_PAGES of PAGE_SIZE): narrow with --network. */
  truncated: boolean
}

export const PAGE_SIZE = 100
export const MAX_PAGES = 10
/** A listing page of 100 resources is tens of kilobytes; 4 MiB is far past any honest one. */
const MAX_PAGE_BYTES = 4 * 1024 * 1024
const TIMEOUT_MS = 15_000

/**
 * Searches a facilitator's bazaar listing for paid services: ours (`{agents_url}`'s facilitator)
 * by default, any x402 facilitator with --facilitator. Every query word must appear in a
 * resource's URL, description, service name, tags or bazaar info; --network, --token and
 * --max-price filter its offers. Each seller is marked payable or not by the logged-in agent
 * (its network, its tokens, the exact scheme).
 */
export async function run(opts: DiscoverOptions, deps: PlatformDeps): Promise<CommandResult<DiscoverResult>> {
  const given = opts.facilitator === undefined ? undefined : httpUrlArg(opts.facilitator, '--facilitator')
  const filter = {
    query: opts.query?.trim() || undefined,
    network: opts.network?.trim().toLowerCase() || undefined,
    token: opts.token === undefined ? undefined : tokenArg(opts.token, '--token'),
    maxPrice: opts.maxPrice === undefined ? undefined : decimalArg(opts.maxPrice, '--max-price'),
  }
  const agentId = opts.agent === undefined ? undefined : uuidArg(opts.agent, '--agent')
  const [{ listingPage, readItems, sellersOf, tokenKey }, { networks }, { getBounded }] = await Promise.all([
    import('../discover/listing.js'),
    import('../../networks/registry.js'),
    import('../discover/fetch-bounded.js'),
  ])
  return ok(
    await spinning(deps, 'reading the bazaar', async () => {
      const [manifest, agent] = await Promise.all([
        // The deployment's token addresses name the assets of its networks; a listing elsewhere still reads without
        // them.
        deps.platform.manifest({}).catch((e) => (given ? undefined : Promise.reject(e))),
        payerAgent(deps, agentId),
      ])
      const book: TokenBook = new Map()
      for (const n of Object.values(networks))
        for (const t of n.tokens) if (t.address) book.set(tokenKey(n.caip2, t.address), t)
      for (const n of manifest?.networks ?? [])
        for (const t of n.tokens) if (t.address) book.set(tokenKey(n.caip2, t.address), t)
      const payer: Payer | null = agent && {
        id: agent.id,
        network: agent.network,
        caip2: networks[agent.network]?.caip2 ?? `eip155:${agent.chainId}`,
        assets: agent.tokens.flatMap((t) => (t.address ? [t.address.toLowerCase()] : [])),
      }
      if (agent) for (const t of agent.tokens) if (t.address && payer) book.set(tokenKey(payer.caip2, t.address), t)

      const base = (given ?? manifest?.payments.facilitator ?? `${deps.session.url}/facilitator`).replace(/\/+$/, '')
      const listing = new URL(/\/discovery\/resources$/.test(base) ? base : `${base}/discovery/resources`)
      // Narrowed at the source where the network is one the listing can name (CAIP-2).
      const caip2 = filter.network
        ? (networks[filter.network]?.caip2 ?? (filter.network.includes(':') ? filter.network : undefined))
        : undefined
      const items = []
      let skipped = 0
      let truncated = false
      for (let page = 0; page < MAX_PAGES; page++) {
        const url = new URL(listing)
        url.searchParams.set('limit', String(PAGE_SIZE))
        url.searchParams.set('offset', String(page * PAGE_SIZE))
        if (caip2) url.searchParams.set('network', caip2)
        const body = await readPage(getBounded, url, listing.href, !given)
        const parsed = listingPage.safeParse(body)
        if (!parsed.success)
          throw unreadable(
            listing.href,
            `an answer that is not a bazaar listing ` +
              `(${parsed.error.issues[0]!.path.join('.') || 'body'}: ${parsed.error.issues[0]!.message})`,
          )
        const got = readItems(parsed.data)
        items.push(...got.items)
        skipped += got.skipped
        const total = parsed.data.pagination?.total
        const read = (page + 1) * PAGE_SIZE
        if (parsed.data.items.length < PAGE_SIZE || (total !== undefined && read >= total)) break
        if (page === MAX_PAGES - 1) truncated = true
      }
      return {
        facilitator: listing.href,
        agent: agent ? { id: agent.id, network: agent.network } : null,
        sellers: sellersOf(items, book, payer, filter),
        scanned: items.length,
        skipped,
        truncated,
      }
    }),
  )
}

/** The agent sellers are checked against: --agent (its user's key or its own), else the logged-in agent, else none. */
async function payerAgent(deps: PlatformDeps, agentId: string | undefined) {
  if (agentId) return deps.platform.showAgent({ params: { id: agentId } })
  if (deps.session.agentKey) return deps.platform.whoamiAgent({})
  return null
}

async function readPage(
  get: typeof import('../discover/fetch-bounded.js').getBounded,
  url: URL,
  shown: string,
  ours: boolean,
): Promise<unknown> {
  let res
  try {
    res = await get(url, { maxBytes: MAX_PAGE_BYTES, timeoutMs: TIMEOUT_MS })
  } catch (e) {
    if (ours && /ECONNREFUSED|ENOTFOUND/.test(String((e as { code?: string }).code))) {
      const { UnreachableError } = await import('../../sdk/http-errors.js')
      throw new UnreachableError(url.origin, e)
    }
    throw unreadable(shown, `no usable answer: ${(e as Error).message}`)
  }
  if (res.status !== 200)
    throw unreadable(
      shown,
      `HTTP ${res.status}${
        res.status === 404
          ? ' (does this facilitator list a bazaar? its /supported names the extensions it serves)'
          : ''
      }`,
    )
  try {
    return JSON.parse(res.text)
  } catch {
    throw unreadable(shown, 'something that is not JSON')
  }
}

const unreadable = (url: string, what: string) =>
  new CliError('DISCOVERY_UNREADABLE', `the discovery listing at ${url} answered ${what}`)

export function human(r: DiscoverResult, ctx: CliContext): string[] {
  const lines: string[] = []
  if (!r.sellers.length) lines.push(`No sellers match (${r.scanned} listed at ${r.facilitator}).`)
  for (const s of r.sellers) {
    const price =
      s.price !== null ? `${s.price} ${s.token}` : `${s.offers[0]!.amount} base units of ${s.offers[0]!.asset}`
    const mark =
      s.payable === null
        ? ''
        : s.payable
          ? ctx.color.green('payable')
          : ctx.color.yellow(`not payable by this agent: ${s.notPayable}`)
    lines.push(`${ctx.color.bold(s.name ?? s.description ?? s.url)}`)
    lines.push(`  ${s.url}`)
    if (s.name && s.description) lines.push(`  ${s.description}`)
    lines.push(
      `  ${price} on ${s.network}` +
        (s.offers.length > 1 ? ctx.color.dim(` (+${s.offers.length - 1} more offers, -o json)`) : '') +
        (mark ? `  ${mark}` : ''),
    )
  }
  if (r.truncated) lines.push(ctx.color.dim(`Read the first ${r.scanned} listed; narrow with --network to see others.`))
  if (r.skipped)
    lines.push(ctx.color.dim(`${r.skipped} listed resources were not in the bazaar's shape and were skipped.`))
  return lines
}

export function define(ctx: () => CliContext): Command {
  const cmd = new Command('discover')
    .description("search a facilitator's bazaar for paid services (default: this platform's facilitator)")
    .argument('[query]', 'words to find in a service URL, description, name or tags')
    .option('--facilitator <url>', "any x402 facilitator's URL (its /discovery/resources listing is read)")
    .option('--network <network>', 'only offers on this network (local-base, base, or a CAIP-2 id such as eip155:8453)')
    .option('--token <symbol>', 'only offers in this token')
    .option(
      '--max-price <amount>',
      'only offers at most this price, in the token (offers whose token parx cannot name are left out)',
    )
    .option('--agent <id>', 'check payability for this agent (its user key); default: the logged-in agent')
  return platformAction(cmd, ctx, run, human)
}
