import {
  createAssociatedTokenAccountIdempotentInstruction,
  createMintToCheckedInstruction,
  getAssociatedTokenAddressSync,
} from '@solana/spl-token'
import { type Keypair, LAMPORTS_PER_SOL, type PublicKey, type TransactionInstruction } from '@solana/web3.js'
import { BaseError } from '../../src/errors/index.js'
import { assertFits, U64_MAX } from '../../src/sdk/amount-range.js'
import { toBaseUnits } from '../../src/sdk/units.js'
import { localSolanaTokens } from './local-deployments.js'
import type { LocalSvm } from './local-svm.js'
import { decodeMint } from './spl-token-state.js'

export type FaucetParameters = {
  svm: LocalSvm
  mintAuthority: Keypair
  to: PublicKey
  /** `SOL` or one of the registry's local-solana token symbols. */
  symbol: string
  /** Human decimal amount ("12.5"), exact at the token's decimals. */
  amount: string
  /** Mints by symbol, as `ensureLocalSolana` returned them. */
  mints: Record<string, PublicKey>
}

const SOL_DECIMALS = Math.log10(LAMPORTS_PER_SOL)
// The mint authority pays the faucet's fees (and the recipient's token account rent).
const AUTHORITY_FLOOR = BigInt(LAMPORTS_PER_SOL)
const AUTHORITY_TOP_UP = 10n * BigInt(LAMPORTS_PER_SOL)
// As requestAirdrop on the embedded RPC: far from u64 even after the faucet's own refill.
const MAX_SOL_AIRDROP = 10n ** 18n

/**
 * Gives test funds on the local cluster: SOL by airdrop, or an SPL token minted into the
 * recipient's associated token account (created when missing). Resolves with the signatures of
 * the transactions that paid the recipient.
 *
 * @example
 * await faucet({ svm, mintAuthority, to: wallet, symbol: 'PUSD', amount: '25.5' })
 */
export async function faucet(params: FaucetParameters): Promise<string[]> {
  const { svm, mintAuthority, to } = params
  const symbol = params.symbol.toUpperCase()
  if (symbol === 'SOL') {
    const lamports = positive(toBaseUnits(params.amount, SOL_DECIMALS))
    // The faucet account is refilled with the amount plus a reserve, so that must fit a u64 too.
    assertFits({ adding: lamports, max: MAX_SOL_AIRDROP, what: 'one SOL faucet payment' })
    assertFits({
      adding: lamports,
      held: svm.getAccount(to.toBase58())?.lamports ?? 0n,
      max: U64_MAX,
      what: `the lamports of ${to.toBase58()}`,
    })
    return [await svm.airdrop(to.toBase58(), lamports)]
  }
  const token = localSolanaTokens().find((t) => t.symbol === symbol)
  if (!token) throw new BaseError('UNKNOWN_TOKEN', `unknown token ${params.symbol} on local-solana`)
  const mint = params.mints[symbol]
  if (!mint) throw new BaseError('UNKNOWN_TOKEN', `${symbol} has no mint on local-solana yet`)
  const amount = positive(toBaseUnits(params.amount, token.decimals))
  // SPL amounts are u64: the mint's supply (which bounds every account) must not pass it.
  assertFits({
    adding: amount,
    held: decodeMint(svm.getAccount(mint.toBase58()))?.supply ?? 0n,
    max: U64_MAX,
    what: `the ${symbol} supply on local-solana`,
  })
  const authority = mintAuthority.publicKey.toBase58()
  if ((svm.getAccount(authority)?.lamports ?? 0n) < AUTHORITY_FLOOR) await svm.airdrop(authority, AUTHORITY_TOP_UP)
  const ata = getAssociatedTokenAddressSync(mint, to, true)
  const instructions: TransactionInstruction[] = []
  if (!svm.getAccount(ata.toBase58())) {
    instructions.push(createAssociatedTokenAccountIdempotentInstruction(mintAuthority.publicKey, ata, to, mint))
  }
  instructions.push(createMintToCheckedInstruction(mint, ata, mintAuthority.publicKey, amount, token.decimals))
  return [await svm.sendInstructions(instructions, [mintAuthority])]
}

function positive(amount: bigint): bigint {
  if (amount <= 0n) throw new BaseError('BAD_REQUEST', 'amount must be greater than zero')
  return amount
}
