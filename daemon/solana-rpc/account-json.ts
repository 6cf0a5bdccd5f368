import bs58 from 'bs58'
import { uiTokenAmount } from './amounts.js'
import { invalidParams, RpcCode, RpcError } from './rpc-error.js'
import {
  type AccountState,
  decodeMint,
  decodeTokenAccount,
  isTokenProgram,
  tokenProgramName,
} from './spl-token-state.js'

export type AccountEncoding = 'binary' | 'base58' | 'base64' | 'base64+zstd' | 'jsonParsed'
export type DataSlice = { offset: number; length: number }

/** What nodes report for rent-exempt accounts since rent collection ended: u64::MAX. */
const RENT_EPOCH = 18_446_744_073_709_551_615n
const MAX_BASE58_BYTES = 128

/** jsonParsed data of an SPL Token mint or token account; undefined for anything else. */
export function parseTokenData(state: AccountState, getAccount: (a: string) => AccountState | null) {
  if (!isTokenProgram(state.owner)) return undefined
  const program = tokenProgramName(state.owner)
  const space = state.data.length
  const mint = decodeMint(state)
  if (mint) {
    return {
      program,
      space,
      parsed: {
        type: 'mint',
        info: {
          decimals: mint.decimals,
          freezeAuthority: mint.freezeAuthority,
          isInitialized: mint.isInitialized,
          mintAuthority: mint.mintAuthority,
          supply: mint.supply.toString(),
        },
      },
    }
  }
  const token = decodeTokenAccount(state)
  const decimals = token && decodeMint(getAccount(token.mint))?.decimals
  if (!token || decimals === undefined) return undefined
  return {
    program,
    space,
    parsed: {
      type: 'account',
      info: {
        isNative: token.isNative !== null,
        mint: token.mint,
        owner: token.owner,
        state: token.state,
        tokenAmount: uiTokenAmount(token.amount, decimals),
        ...(token.delegate
          ? { delegate: token.delegate, delegatedAmount: uiTokenAmount(token.delegatedAmount, decimals) }
          : {}),
        ...(token.closeAuthority ? { closeAuthority: token.closeAuthority } : {}),
        ...(token.isNative !== null ? { rentExemptReserve: uiTokenAmount(token.isNative, decimals) } : {}),
      },
    },
  }
}

function encodeData(data: Uint8Array, encoding: AccountEncoding, slice?: DataSlice): unknown {
  const bytes = slice ? data.subarray(slice.offset, slice.offset + slice.length) : data
  if (encoding === 'base64' || encoding === 'jsonParsed') return [Buffer.from(bytes).toString('base64'), 'base64']
  if (encoding === 'base64+zstd')
    throw invalidParams('Invalid params: base64+zstd encoding is not supported by this node; use base64')
  if (bytes.length > MAX_BASE58_BYTES) {
    throw new RpcError(
      RpcCode.INVALID_REQUEST,
      `Encoded binary (base 58) data should be less than ${MAX_BASE58_BYTES} bytes, please use Base64 encoding.`,
    )
  }
  const text = bs58.encode(bytes)
  return encoding === 'binary' ? text : [text, 'base58']
}

/** An account as the RPC returns it (`getAccountInfo`'s value and friends). */
export function encodeAccount(
  state: AccountState,
  opts: { encoding?: AccountEncoding; dataSlice?: DataSlice; getAccount: (a: string) => AccountState | null },
) {
  const encoding = opts.encoding ?? 'binary'
  // As on a node, jsonParsed falls back to base64 for data it cannot parse (or when sliced).
  const parsed = encoding === 'jsonParsed' && !opts.dataSlice ? parseTokenData(state, opts.getAccount) : undefined
  return {
    data: parsed ?? encodeData(state.data, encoding, opts.dataSlice),
    executable: state.executable,
    lamports: state.lamports,
    owner: state.owner,
    rentEpoch: RENT_EPOCH,
    space: state.data.length,
  }
}
