import {
  ACCOUNT_SIZE, AccountLayout, MINT_SIZE, MintLayout, TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID,
} from '@solana/spl-token'

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

export function decodeTokenAccount(account: AccountState | null): TokenAccountState | undefined {
  if (!account || kind(account) !== 'account') return undefined
  const a = AccountLayout.decode(account.data.subarray(0, ACCOUNT_SIZE))
  const state = STATES[a.state]
  if (!state || state === 'uninitialized') return undefined
  return {
    mint: a.mint.toBase58(),
    owner: a.owner.toBase58(),
    amount: a.amount,
    delegate: a.delegateOption ? a.delegate.toBase58() : null,
    state,
    isNative: a.isNativeOption ? a.isNative : null,
    delegatedAmount: a.delegatedAmount,
    closeAuthority: a.closeAuthorityOption ? a.closeAuthority.toBase58() : null,
  }
}
