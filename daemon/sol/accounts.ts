import {
  ACCOUNT_SIZE,
  getAssociatedTokenAddressSync,
  TOKEN_2022_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
  unpackAccount,
} from '@solana/spl-token'
import { type AccountInfo, PublicKey } from '@solana/web3.js'
import { BaseError } from '../../src/errors/index.js'
import type { SolanaChain, SplMint } from '../chains/solana/chain.js'
import { keyBase58 } from '../chains/solana/key-memo.js'

/** A mint with the token program that owns it: classic SPL Token or Token-2022 (issuers use both). */
export type Token = SplMint & { program: PublicKey }

const programsByChain = new WeakMap<SolanaChain, Promise<Record<string, Token>>>()

/** The registry's mints with their token programs, read once per chain (a mint never changes program). */
export function chainTokens(chain: SolanaChain): Promise<Record<string, Token>> {
  let p = programsByChain.get(chain)
  if (!p) {
    p = readPrograms(chain)
    programsByChain.set(chain, p)
    // A failed read is retried by the next request instead of being remembered.
    p.catch(() => programsByChain.get(chain) === p && programsByChain.delete(chain))
  }
  return p
}

async function readPrograms(chain: SolanaChain): Promise<Record<string, Token>> {
  const mints = Object.values(chain.mints)
  const infos = await rpc(() => chain.connection.getMultipleAccountsInfo(mints.map((m) => m.mint)))
  const out: Record<string, Token> = {}
  mints.forEach((m, i) => {
    const owner = infos[i]?.owner
    if (!owner || !(owner.equals(TOKEN_PROGRAM_ID) || owner.equals(TOKEN_2022_PROGRAM_ID))) {
      throw new BaseError(
        'CHAIN_UNAVAILABLE',
        `the ${m.symbol} mint ${m.mint.toBase58()} is not an SPL token mint ` +
          `on ${chain.key}; check serve.contracts["${chain.key}"].${m.symbol}`,
      )
    }
    out[m.symbol] = { ...m, program: owner }
  })
  return out
}

// Deriving an address costs about a millisecond (a curve check per bump tried); a build needs eight.
const ATA_CACHE_SIZE = 50_000
const atas = new Map<string, PublicKey>()

/** The associated token account of `owner` for `token`: where swaps debit and credit. */
export function ataOf(owner: PublicKey, token: Pick<Token, 'mint' | 'program'>): PublicKey {
  // Keys from the memo: three base58 encodings per lookup, eight lookups per build, cost more than the lookups.
  const key = `${keyBase58(owner)}:${keyBase58(token.mint)}:${keyBase58(token.program)}`
  let ata = atas.get(key)
  if (!ata) {
    // Off-curve owners (PDAs) have associated accounts too; reading their balance must not throw
    // (a 500 found by the fuzz suite). Swaps refuse such users earlier (walletKey).
    ata = getAssociatedTokenAddressSync(token.mint, owner, true, token.program)
    if (atas.size >= ATA_CACHE_SIZE) atas.delete(atas.keys().next().value!)
    atas.set(key, ata)
  }
  return ata
}

/** Balance of a token account as read; a missing account holds 0. */
export function tokenAmount(address: PublicKey, info: AccountInfo<Buffer> | null, token: Token): bigint {
  if (!info) return 0n
  return unpackAccount(address, info, token.program).amount
}

/** The minimum balances this cluster asks of a system account and of a token account. */
export type Rent = { system: bigint; tokenAccount: bigint }

const rentByChain = new WeakMap<SolanaChain, Promise<Rent>>()

export function chainRent(chain: SolanaChain): Promise<Rent> {
  let p = rentByChain.get(chain)
  if (!p) {
    p = rpc(async () => {
      const [system, tokenAccount] = await Promise.all([
        chain.connection.getMinimumBalanceForRentExemption(0),
        chain.connection.getMinimumBalanceForRentExemption(ACCOUNT_SIZE),
      ])
      return { system: BigInt(system), tokenAccount: BigInt(tokenAccount) }
    })
    rentByChain.set(chain, p)
    p.catch(() => rentByChain.get(chain) === p && rentByChain.delete(chain))
  }
  return p
}

/** A chain read; a node that does not answer becomes CHAIN_UNAVAILABLE instead of a 500. */
export async function rpc<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read()
  } catch (e) {
    if (e instanceof BaseError) throw e
    throw new BaseError(
      'CHAIN_UNAVAILABLE',
      `the Solana RPC did not answer (${e instanceof Error ? e.message : String(e)}); retry shortly`,
      { cause: e },
    )
  }
}

/**
 * A wallet that can sign: a base58 key on the ed25519 curve. An off-curve key (a PDA) has no
 * private key, so a transaction waiting for its signature could never land.
 */
export function walletKey(value: string, field: string, solver: PublicKey): PublicKey {
  const key = new PublicKey(value)
  if (!onCurve(value, key)) {
    throw new BaseError(
      'BAD_REQUEST',
      `invalid field '${field}': ${value} is a program-derived address, not a wallet; it cannot sign the transaction`,
    )
  }
  if (key.equals(solver)) throw new BaseError('BAD_REQUEST', `invalid field '${field}': ${value} is the solver itself`)
  return key
}

// The curve check costs about 0.2 ms (a field exponentiation); a user builds many swaps.
const ON_CURVE_CACHE_SIZE = 50_000
const onCurveKeys = new Set<string>()

function onCurve(value: string, key: PublicKey): boolean {
  if (onCurveKeys.has(value)) return true
  if (!PublicKey.isOnCurve(key.toBytes())) return false
  if (onCurveKeys.size >= ON_CURVE_CACHE_SIZE) onCurveKeys.delete(onCurveKeys.values().next().value!)
  onCurveKeys.add(value)
  return true
}
