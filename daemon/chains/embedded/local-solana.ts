import { type Keypair, PublicKey } from '@solana/web3.js'
import { BaseError } from '../../../src/errors/index.js'
import type { NetworkSpec } from '../../../src/networks/registry.js'
import type { ServiceKeys } from '../../keys/service-keys.js'
import { solanaKeypair } from '../../keys/solana-keypair.js'
import type { SolanaFaucet } from '../../local/faucet.js'
import {
  type ChainDb,
  type LocalSvm,
  loadCluster,
  type RecordedCluster,
  recordedCluster,
  type SettlementPrograms,
  startSolanaRpc,
} from '../../solana-rpc/index.js'
import { checkpointerStopped } from '../../store/checkpointer.js'
import { type SolanaChain, solanaChain } from '../solana/chain.js'
import type { DeploymentStore } from './deployments.js'
import { openChainDb } from './solana-chain-db.js'
import { embeddedReadsOnceUp } from './solana-reads.js'

export type LocalSolana = {
  chain: SolanaChain
  faucet: SolanaFaucet
  /** origin_settler and dest_settler program ids (loaded at every start, recorded on the first). */
  programs: SettlementPrograms
  /** The cluster itself, built when first needed (tests and tools; the daemon goes through `chain`). */
  svm(): Promise<LocalSvm>
  /** Whether LiteSVM has been built (or its build has begun). */
  built(): boolean
  stop(): Promise<void>
}

type StartLocalSolanaParameters = {
  spec: NetworkSpec
  host: string
  port?: number
  chainDbFile: string
  deployments: DeploymentStore
  keys: ServiceKeys
  genesisHash?: string
  /**
   * A restart builds the cluster once this resolves (the daemon's ready line), or at the first
   * request before then. Without it, the cluster is built before this returns.
   */
  buildAfter?: Promise<unknown>
}

/**
 * The embedded Solana cluster: LiteSVM persisted in its own tables of `chainDbFile` (parx.db),
 * its mints (recorded in the store's deployments) and solver inventory created on the first
 * start, served as JSON-RPC (+ websocket on port+1) like a validator.
 *
 * A restart whose recorded mints and programs are still on the saved chain (recorded-cluster.ts)
 * serves at once and builds LiteSVM later: loading litesvm and @solana/kit, constructing the VM
 * and loading the programs was about a quarter of a warm start's time to the ready line.
 */
export async function startLocalSolana(p: StartLocalSolanaParameters): Promise<LocalSolana> {
  const db = openChainDb(p.chainDbFile)
  let building: Promise<Built> | undefined
  try {
    const mintAuthority = solanaKeypair(p.keys.solanaMintAuthority)
    const attestors = p.keys.solanaAttestors.map((k) => solanaKeypair(k).publicKey)
    const recorded =
      p.buildAfter !== undefined
        ? await recordedCluster({ db, deployments: p.deployments, mintAuthority: mintAuthority.publicKey, attestors })
        : undefined
    const built = () =>
      (building ??= build({ db, deployments: p.deployments, keys: p.keys, mintAuthority, attestors }, recorded).catch(
        (e: unknown) => {
          process.stderr.write(
            `parx: the embedded Solana cluster failed to start; its requests fail until a restart: ${errorText(e)}\n`,
          )
          throw e
        },
      ))
    const now = recorded ? undefined : await built()
    const svm = async () => (await built()).svm
    const cluster = recorded ?? now!
    // A client only sees "Internal error": the cause is ours to read, on the daemon's stderr.
    const onInternalError = (e: unknown) =>
      process.stderr.write(`parx: the embedded Solana RPC failed a request (a bug): ${errorText(e)}\n`)
    const rpc = await startSolanaRpc({
      svm: now?.svm ?? svm,
      host: p.host,
      port: p.port ?? 0,
      genesisHash: p.genesisHash,
      onInternalError,
    })
    if (recorded) void p.buildAfter!.then(built).catch(() => {})
    const chain: SolanaChain = {
      ...solanaChain(
        p.spec,
        rpc.rpcUrl,
        rpc.wsUrl,
        {
          ...Object.fromEntries(Object.entries(cluster.mints).map(([s, m]) => [s, m.toBase58()])),
          originSettler: cluster.programs.originSettler.toBase58(),
          destSettler: cluster.programs.destSettler.toBase58(),
        },
        { fetch: rpc.fetch, reads: embeddedReadsOnceUp(svm) },
      ),
      testHooks: { advanceSlots: async (slots) => (await svm()).advanceSlots(slots) },
    }
    return {
      chain,
      svm,
      built: () => building !== undefined,
      programs: cluster.programs,
      faucet: async ({ to, token, amount }) => {
        let recipient: PublicKey
        try {
          recipient = new PublicKey(to)
        } catch {
          throw new BaseError('BAD_REQUEST', `invalid field 'to': not a Solana public key (base58, 32 bytes)`)
        }
        const b = await built()
        const sigs = await b.faucet({ svm: b.svm, mintAuthority, to: recipient, symbol: token, amount, mints: b.mints })
        return sigs.at(-1)!
      },
      stop: async () => {
        await rpc.stop()
        // A build under way writes to the chain's tables: it finishes before they close.
        await building?.catch(() => {})
        db.close()
        // With a PostgreSQL store this is parx.db's last connection: wait for its checkpointer too.
        await checkpointerStopped(p.chainDbFile)
      },
    }
  } catch (e) {
    await building?.catch(() => {})
    db.close()
    throw e
  }
}

type Built = RecordedCluster & { svm: LocalSvm; faucet: Awaited<ReturnType<typeof loadCluster>>['faucet'] }

/** LiteSVM with the saved chain, the mints, inventory and programs; a restart must find what it announced. */
async function build(
  p: { db: ChainDb; deployments: DeploymentStore; keys: ServiceKeys; mintAuthority: Keypair; attestors: PublicKey[] },
  announced: RecordedCluster | undefined,
): Promise<Built> {
  const cluster = await loadCluster()
  const svm = cluster.createLocalSvm({ db: p.db })
  const { mints } = await cluster.ensureLocalSolana({
    svm,
    deployments: p.deployments,
    mintAuthority: p.mintAuthority,
    solver: solanaKeypair(p.keys.solanaSolver),
    facilitator: solanaKeypair(p.keys.solanaFacilitator),
  })
  const programs = await cluster.ensureSettlementPrograms({
    svm,
    deployments: p.deployments,
    admin: p.mintAuthority,
    attestors: p.attestors,
  })
  if (announced && !sameCluster(announced, { mints, programs })) {
    // Not expected: nothing else writes the chain between the check and the build.
    throw new BaseError(
      'INTERNAL',
      'the embedded Solana cluster came up with other mints or programs than its saved state named; restart parx serve',
    )
  }
  return { svm, mints, programs, faucet: cluster.faucet }
}

const errorText = (e: unknown) => (e instanceof Error ? (e.stack ?? e.message) : String(e))

function sameCluster(a: RecordedCluster, b: RecordedCluster): boolean {
  const keys = (c: RecordedCluster) =>
    [
      ...Object.entries(c.mints)
        .map(([s, m]) => `${s}=${m.toBase58()}`)
        .sort(),
      c.programs.originSettler.toBase58(),
      c.programs.destSettler.toBase58(),
    ].join()
  return keys(a) === keys(b)
}
