import { ACCOUNT_SIZE, MINT_SIZE, MintLayout, TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from '@solana/spl-token'
import bs58 from 'bs58'

export const TOKEN_PROGRAM = TOKEN_PROGRAM_ID.toBase58()
export const TOKEN_2022_PROGRAM = TOKEN_2022_PROGRAM_ID.toBase58()

/** An account as the embedded cluster holds it (a closed account is `null`, never zero lamports). */
export type AccountState = {
  lamports: bigint
  owner: string
  data: Uint8Array
  executable: boolean
}

export type MintState = {
  mintAuthority: string | null
  supply: bigint
  decimals: number
  isInitialized: boolean
  freezeAuthority: string | null
}

export type TokenAccountState = {
  mint: string
  owner: string
  amount: bigint
  delegate: string | null
  state: 'uninitialized' | 'initialized' | 'frozen'
  /** Wrapped SOL: the rent-exempt reserve kept out of the token amount. */
  isNative: bigint | null
  delegatedAmount: bigint
  closeAuthority: string | null
}

// Token-2022 pads extended mints to the account size and tags both kinds after it.
const ACCOUNT_TYPE_OFFSET = ACCOUNT_SIZE
const ACCOUNT_TYPE_MINT = 1
const ACCOUNT_TYPE_ACCOUNT = 2

export function isTokenProgram(owner: string): boolean {
  return owner === TOKEN_PROGRAM || owner === TOKEN_2022_PROGRAM
}

/** `spl-token` or `spl-token-2022`, the `program` field of jsonParsed data. */
export function tokenProgramName(owner: string): string {
  return owner === TOKEN_2022_PROGRAM ? 'spl-token-2022' : 'spl-token'
}

function kind(account: AccountState): 'mint' | 'account' | undefined {
  if (!isTokenProgram(account.owner)) return undefined
  const len = account.data.length
  if (len === MINT_SIZE) return 'mint'
  if (len === ACCOUNT_SIZE) return 'account'
  if (account.owner !== TOKEN_2022_PROGRAM || len <= ACCOUNT_TYPE_OFFSET) return undefined
  const tag = account.data[ACCOUNT_TYPE_OFFSET]
  return tag === ACCOUNT_TYPE_MINT ? 'mint' : tag === ACCOUNT_TYPE_ACCOUNT ? 'account' : undefined
}

export function decodeMint(account: AccountState | null): MintState | undefined {
  if (!account || kind(account) !== 'mint') return undefined
  const m = MintLayout.decode(account.data.subarray(0, MINT_SIZE))
  if (!m.isInitialized) return undefined
  return {
    mintAuthority: m.mintAuthorityOption ? m.mintAuthority.toBase58() : null,
    supply: m.supply,
    decimals: m.decimals,
    isInitialized: m.isInitialized,
    freezeAuthority: m.freezeAuthorityOption ? m.freezeAuthority.toBase58() : null,
  }
}

const STATES = ['uninitialized', 'initialized', 'frozen'] as const

/**
 * Read field by field (AccountLayout's offsets) rather than through AccountLayout.decode, which
 * builds four PublicKeys (BN-backed) and base58-encodes them through BN: every transaction decodes
 * its token accounts before and after it runs, for its token balances.
 */
export function decodeTokenAccount(account: AccountState | null): TokenAccountState | undefined {
  if (!account || kind(account) !== 'account') return undefined
  const d = account.data
  const view = new DataView(d.buffer, d.byteOffset, ACCOUNT_SIZE)
  const state = STATES[d[108]!]
  if (!state || state === 'uninitialized') return undefined
  return {
    mint: base58Key(d, 0),
    owner: base58Key(d, 32),
    amount: view.getBigUint64(64, true),
    delegate: view.getUint32(72, true) ? base58Key(d, 76) : null,
    state,
    isNative: view.getUint32(109, true) ? view.getBigUint64(113, true) : null,
    delegatedAmount: view.getBigUint64(121, true),
    closeAuthority: view.getUint32(129, true) ? base58Key(d, 133) : null,
  }
}

// Mints and owners repeat from transaction to transaction: their base58 is kept.
const KEY_CACHE_SIZE = 4096
const keyNames = new Map<string, string>()

function base58Key(data: Uint8Array, offset: number): string {
  const bytes = data.subarray(offset, offset + 32)
  const id = Buffer.from(bytes.buffer, bytes.byteOffset, 32).toString('latin1')
  let name = keyNames.get(id)
  if (name === undefined) {
    name = bs58.encode(bytes)
    if (keyNames.size >= KEY_CACHE_SIZE) keyNames.clear()
    keyNames.set(id, name)
  }
  return name
}
