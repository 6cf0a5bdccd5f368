import { type AccountInfo, PublicKey, type SignatureStatus } from '@solana/web3.js'
import type { AccountState, LocalSvm } from '../../solana-rpc/index.js'
import { keyBase58 } from '../solana/key-memo.js'
import type { SolanaReads } from '../solana/reads.js'

/**
 * The embedded cluster's answers to the daemon's own chain reads, taken from its state in process.
 * They are what its JSON-RPC answers (the same LocalSvm calls) at any commitment: a transaction is
 * on disk before anyone can read what it changed (group-commit.ts), so processed is confirmed.
 */
export function embeddedReads(svm: LocalSvm): SolanaReads {
  return {
    // Keys in base58 from the memo: the same account objects (a swap's token accounts) come back on every build.
    multipleAccounts: async (keys) => {
      svm.tick()
      return keys.map((k) => accountInfo(svm.getAccount(keyBase58(k))))
    },
    blockHeight: async () => svm.clock.blockHeight(svm.tick()),
    signatureStatuses: async (signatures, opts) =>
      signatures.map((s) => svm.signatureStatus(s, opts.searchTransactionHistory) as SignatureStatus | null),
    latestBlockhash: async () => {
      const { blockhash, lastValidBlockHeight } = svm.latestBlockhash()
      return { blockhash, lastValidBlockHeight }
    },
    simulate: async (wire, opts) => svm.preflight(wire, { sigVerify: opts.sigVerify }),
  }
}

/** The same reads for a cluster built on first use: the first read asks for it, later ones go straight through. */
export function embeddedReadsOnceUp(svm: () => Promise<LocalSvm>): SolanaReads {
  let reads: SolanaReads | undefined
  const up = async () => (reads ??= embeddedReads(await svm()))
  // Each read as the built cluster's, through `up` until there is one.
  const through = <K extends keyof SolanaReads>(name: K): SolanaReads[K] => {
    const call = (r: SolanaReads, args: unknown[]) => (r[name] as (...a: unknown[]) => Promise<unknown>)(...args)
    return ((...args: unknown[]) => (reads ? call(reads, args) : up().then((r) => call(r, args)))) as SolanaReads[K]
  }
  return {
    multipleAccounts: through('multipleAccounts'),
    blockHeight: through('blockHeight'),
    signatureStatuses: through('signatureStatuses'),
    latestBlockhash: through('latestBlockhash'),
    simulate: through('simulate'),
  }
}

// What nodes report for rent-exempt accounts since rent collection ended (u64::MAX), as web3.js parses it.
const RENT_EPOCH = Number(18_446_744_073_709_551_615n)
// Owners are few (the system and token programs): one PublicKey each.
const owners = new Map<string, PublicKey>()

function accountInfo(s: AccountState | null): AccountInfo<Buffer> | null {
  if (!s) return null
  let owner = owners.get(s.owner)
  if (!owner) {
    owner = new PublicKey(s.owner)
    if (owners.size >= 1024) owners.clear()
    owners.set(s.owner, owner)
  }
  // A copy: the state is shared with the cluster's cache and must not be written through.
  return {
    lamports: Number(s.lamports),
    owner,
    executable: s.executable,
    data: Buffer.from(s.data),
    rentEpoch: RENT_EPOCH,
  }
}
