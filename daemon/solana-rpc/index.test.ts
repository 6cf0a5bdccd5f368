import { fileURLToPath } from 'node:url'
import { getAssociatedTokenAddressSync } from '@solana/spl-token'
import {
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  SystemProgram,
  sendAndConfirmTransaction,
  Transaction,
} from '@solana/web3.js'
import Sqlite from 'better-sqlite3'
import { build, type Metafile } from 'esbuild'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type EmbeddedSolana,
  LOCAL_SOLANA_GENESIS_HASH,
  memoryDeployments,
  prepareChainDb,
  startEmbeddedSolana,
} from './index.js'

// The room alone, through its public face only: no daemon, no store, no config. A client meets it
// as it meets a validator, over JSON-RPC on 127.0.0.1.
describe('the embedded Solana cluster started from its public face', () => {
  let sol: EmbeddedSolana
  let connection: Connection
  beforeAll(async () => {
    sol = await startEmbeddedSolana({ host: '127.0.0.1', port: 0 })
    connection = new Connection(sol.rpc.rpcUrl, 'confirmed')
  })
  afterAll(async () => {
    await sol?.stop()
  })

  it('answers on 127.0.0.1 as a node does', async () => {
    expect(new URL(sol.rpc.rpcUrl).hostname).toBe('127.0.0.1')
    expect((await connection.getVersion())['solana-core']).toMatch(/^\d+\.\d+\.\d+$/)
    expect(await connection.getGenesisHash()).toBe(LOCAL_SOLANA_GENESIS_HASH)
  })

  it('airdrops and transfers SOL, exactly', async () => {
    const payer = Keypair.generate()
    const to = Keypair.generate().publicKey
    const signature = await connection.requestAirdrop(payer.publicKey, 2 * LAMPORTS_PER_SOL)
    const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash()
    await connection.confirmTransaction({ signature, blockhash, lastValidBlockHeight })
    expect(await connection.getBalance(payer.publicKey)).toBe(2 * LAMPORTS_PER_SOL)

    const tx = new Transaction().add(
      SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to, lamports: 1_234_567 }),
    )
    const sent = await sendAndConfirmTransaction(connection, tx, [payer])
    const fee = (await connection.getTransaction(sent, { maxSupportedTransactionVersion: 0 }))!.meta!.fee
    expect(await connection.getBalance(to)).toBe(1_234_567)
    expect(await connection.getBalance(payer.publicKey)).toBe(2 * LAMPORTS_PER_SOL - 1_234_567 - fee)
  })

  it("carries the registry's mints, with the solver's inventory on them", async () => {
    expect(Object.keys(sol.mints).length).toBeGreaterThan(0)
    for (const mint of Object.values(sol.mints)) {
      const ata = getAssociatedTokenAddressSync(mint, sol.keys.solver.publicKey, true)
      expect(BigInt((await connection.getTokenAccountBalance(ata)).value.amount)).toBeGreaterThan(0n)
    }
  })
})

it('a restart on the same database and deployments serves the same chain and mints', async () => {
  const db = prepareChainDb(new Sqlite(':memory:'))
  const deployments = memoryDeployments()
  const first = await startEmbeddedSolana({ db, deployments })
  const owner = Keypair.generate().publicKey
  try {
    await first.svm.airdrop(owner.toBase58(), BigInt(LAMPORTS_PER_SOL))
  } finally {
    await first.stop()
  }
  const again = await startEmbeddedSolana({ db, deployments, keys: first.keys })
  try {
    expect(Object.fromEntries(Object.entries(again.mints).map(([s, m]) => [s, m.toBase58()]))).toEqual(
      Object.fromEntries(Object.entries(first.mints).map(([s, m]) => [s, m.toBase58()])),
    )
    expect(await new Connection(again.rpc.rpcUrl, 'confirmed').getBalance(owner)).toBe(LAMPORTS_PER_SOL)
  } finally {
    await again.stop()
    db.close()
  }
})

/** The room's face bundled as the daemon bundles it (packages left out), with what each chunk imports. */
async function faceBundle(): Promise<Metafile> {
  const root = fileURLToPath(new URL('../..', import.meta.url))
  const { metafile } = await build({
    entryPoints: ['daemon/solana-rpc/index.ts'],
    absWorkingDir: root,
    bundle: true,
    write: false,
    splitting: true,
    format: 'esm',
    platform: 'node',
    packages: 'external',
    outdir: '/tmp/unused',
    metafile: true,
    logLevel: 'silent',
  })
  return metafile
}

// A restarted daemon serves before LiteSVM is built (docs/internals.md): the face it imports at
// start must not load LiteSVM or @solana/kit, which only loadCluster() brings in.
it('loads neither LiteSVM nor @solana/kit until a cluster is built', async () => {
  const { outputs } = await faceBundle()
  const start = Object.keys(outputs).find((o) => outputs[o]!.entryPoint === 'daemon/solana-rpc/index.ts')
  expect(start).toBeDefined()
  const loaded = new Set<string>()
  const walk = (out: string) => {
    for (const i of outputs[out]!.imports) {
      if (i.kind !== 'import-statement' || loaded.has(i.path)) continue
      loaded.add(i.path)
      if (!i.external) walk(i.path)
    }
  }
  walk(start!)
  expect([...loaded].filter((p) => p === 'litesvm' || p.startsWith('@solana/kit'))).toEqual([])
  // The builders are there, behind the dynamic import.
  expect(Object.values(outputs).some((o) => o.imports.some((i) => i.path === 'litesvm'))).toBe(true)
})

// The room is importable without the daemon: it takes the store, the deployments and the keys as
// parameters. What it still reads of daemon/ are two pure helpers (a Node HTTP parser-error answer
// and the native ed25519 keypair), named here so a new arrow into the daemon fails.
it('imports nothing of the daemon but two pure helpers', async () => {
  const { inputs } = await faceBundle()
  const daemon = Object.keys(inputs).filter((p) => p.startsWith('daemon/') && !p.startsWith('daemon/solana-rpc/'))
  expect(daemon.sort()).toEqual([
    'daemon/http/node-errors.ts',
    'daemon/http/request-id.ts',
    'daemon/keys/solana-keypair.ts',
    'daemon/random-hex.ts',
  ])
  expect(Object.keys(inputs).filter((p) => !/^(daemon|src|contracts)\//.test(p))).toEqual([])
})
