import {
  createAssociatedTokenAccountIdempotentInstruction,
  createInitializeMint2Instruction,
  createMintToCheckedInstruction,
  getAssociatedTokenAddressSync,
  MINT_SIZE,
  TOKEN_PROGRAM_ID,
} from '@solana/spl-token'
import { Keypair, LAMPORTS_PER_SOL, type PublicKey, SystemProgram } from '@solana/web3.js'
import { type ClusterDeployments, localSolanaTokens, readMint, writeMint } from './local-deployments.js'
import type { LocalSvm } from './local-svm.js'
import { decodeMint } from './spl-token-state.js'

export { type FaucetParameters, faucet } from './faucet.js'

export type EnsureLocalSolanaParameters = {
  svm: LocalSvm
  /** Where the mints are recorded (the store's `deployments`). */
  deployments: ClusterDeployments
  mintAuthority: Keypair
  solver: Keypair
  facilitator: Keypair
}

export type LocalSolana = { mints: Record<string, PublicKey> }

/** SOL each service key starts with, and the level below which a start tops it up again. */
const STARTING_LAMPORTS = 100n * BigInt(LAMPORTS_PER_SOL)
const TOP_UP_BELOW = 10n * BigInt(LAMPORTS_PER_SOL)
/** Whole tokens of each mint the solver starts with. */
export const SOLVER_INVENTORY = 1_000_000n

/**
 * Makes the local cluster ready to serve: SOL for the service's keys, the registry's SPL mints
 * (with `mintAuthority` as their authority) and the solver's inventory. The first start creates
 * them with real transactions; later starts find the mints in `deployments` and reuse them.
 *
 * @example
 * const { mints } = await ensureLocalSolana({ svm, deployments, mintAuthority, solver, facilitator })
 */
export async function ensureLocalSolana(params: EnsureLocalSolanaParameters): Promise<LocalSolana> {
  const { svm, deployments, mintAuthority, solver } = params
  for (const key of [mintAuthority, solver, params.facilitator]) {
    const balance = svm.getAccount(key.publicKey.toBase58())?.lamports ?? 0n
    if (balance < TOP_UP_BELOW) await svm.airdrop(key.publicKey.toBase58(), STARTING_LAMPORTS - balance)
  }
  const mints: Record<string, PublicKey> = {}
  for (const token of localSolanaTokens()) {
    const recorded = await readMint(deployments, token.symbol)
    const state = recorded && decodeMint(svm.getAccount(recorded.toBase58()))
    const usable =
      state && state.decimals === token.decimals && state.mintAuthority === mintAuthority.publicKey.toBase58()
    const mint = usable ? recorded : await createMint(svm, mintAuthority, token.decimals)
    if (!usable) await writeMint(deployments, token.symbol, mint)
    mints[token.symbol] = mint
    await ensureInventory(svm, mintAuthority, solver.publicKey, mint, token.decimals)
  }
  return { mints }
}

async function createMint(svm: LocalSvm, authority: Keypair, decimals: number): Promise<PublicKey> {
  const mint = Keypair.generate()
  await svm.sendInstructions(
    [
      SystemProgram.createAccount({
        fromPubkey: authority.publicKey,
        newAccountPubkey: mint.publicKey,
        space: MINT_SIZE,
        lamports: Number(svm.minimumBalanceForRentExemption(MINT_SIZE)),
        programId: TOKEN_PROGRAM_ID,
      }),
      createInitializeMint2Instruction(mint.publicKey, decimals, authority.publicKey, null),
    ],
    [authority, mint],
  )
  return mint.publicKey
}

/** The solver's token account, created and filled when it does not exist yet (never refilled). */
async function ensureInventory(
  svm: LocalSvm,
  authority: Keypair,
  solver: PublicKey,
  mint: PublicKey,
  decimals: number,
) {
  const ata = getAssociatedTokenAddressSync(mint, solver, true)
  if (svm.getAccount(ata.toBase58())) return
  await svm.sendInstructions(
    [
      createAssociatedTokenAccountIdempotentInstruction(authority.publicKey, ata, solver, mint),
      createMintToCheckedInstruction(
        mint,
        ata,
        authority.publicKey,
        SOLVER_INVENTORY * 10n ** BigInt(decimals),
        decimals,
      ),
    ],
    [authority],
  )
}
