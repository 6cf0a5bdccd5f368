import { Command } from 'commander'
import { type CliContext, label } from '../context.js'
import { CliError, usageError } from '../errors.js'

export type AttestorOptions = { index: string; host: string; port: string; dataDir?: string }

type DaemonModule = typeof import('../../../daemon/entry.js')

/** The daemon side is reached through the one module `parx serve` loads, lazily, as serve does. */
const loadDaemon = (): Promise<DaemonModule> => import('../../../daemon/entry.js')

/** What the daemon's GET /api/config tells an attestor: public addresses and where the chains are. */
type PublicConfig = {
  networks: { base: string; solana: string }
  escrow: string | null
  verifier: string | null
  outputSettler: string | null
  solanaPrograms: { originSettler: string | null; destSettler: string | null }
  urls: { rpc: Record<string, string> }
}

/**
 * `parx attestor --index N`: one cross-chain attestor as its own process (issue: three independent
 * attestors). It signs with its own keys only (PARX_ATTESTOR_KEY and PARX_SOLANA_ATTESTOR_KEY, or,
 * on the local profile, its entry in the data dir's keys.json), reads the chains with its own
 * clients (PARX_RPC_<NETWORK>, else the RPC URLs the daemon publishes), and takes the contracts'
 * public addresses from the daemon's /api/config. The daemon asks it once configured with
 * PARX_XCHAIN_ATTESTOR_URLS="N=<the url it prints>". Runs until Ctrl-C / SIGTERM.
 */
export async function run(opts: AttestorOptions, ctx: CliContext, deps = { loadDaemon }): Promise<number> {
  const index = Number(opts.index)
  if (![0, 1, 2].includes(index)) throw usageError(`--index is 0, 1 or 2 (got '${opts.index}')`)
  const port = Number(opts.port)
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw usageError(`--port is 0-65535 (got '${opts.port}')`)
  const [{ callDaemon }, { networks }, { readRuntimeFile }] = await Promise.all([
    import('../daemon-call.js'),
    import('../../networks/registry.js'),
    import('../runtime-file.js'),
  ])
  const keys = await attestorKeys(ctx, index, opts.dataDir ?? readRuntimeFile(ctx.env)?.dataDir)
  const pub = await callDaemon<PublicConfig>(ctx, '/api/config')
  const rpc = (net: string) => {
    const url = ctx.env[`PARX_RPC_${net.toUpperCase().replaceAll('-', '_')}`] || pub.urls.rpc[net]
    if (!url) throw usageError(`no RPC URL for ${net}: set PARX_RPC_${net.toUpperCase().replaceAll('-', '_')}`)
    return url
  }
  const spec = (net: string) => {
    const s = networks[net]
    if (!s)
      throw new CliError(
        'NOT_PARX',
        `the daemon at ${ctx.apiUrl} names network '${net}', which this parx does not know: update parx`,
      )
    return s
  }
  const present = (o: Record<string, string | null>) =>
    Object.fromEntries(Object.entries(o).filter((e): e is [string, string] => e[1] !== null))
  const { startAttestorProcess } = await deps.loadDaemon()
  const a = await startAttestorProcess({
    index,
    keys,
    host: opts.host,
    port,
    // The daemon's setting, where the operator shares it; the default otherwise (docs/cross-chain.md: the settings).
    expirySeconds: Number(ctx.env.PARX_XCHAIN_EXPIRY_SECONDS) || 900,
    chains: {
      base: {
        spec: spec(pub.networks.base),
        rpcUrl: rpc(pub.networks.base),
        contracts: present({ escrow: pub.escrow, verifier: pub.verifier, outputSettler: pub.outputSettler }),
      },
      solana: {
        spec: spec(pub.networks.solana),
        rpcUrl: rpc(pub.networks.solana),
        programs: present(pub.solanaPrograms),
      },
    },
  })
  const ready = {
    ready: true,
    index,
    url: a.url,
    ed25519: a.health.ed25519,
    evm: a.health.evm,
    rails: a.health.rails,
    pid: process.pid,
  }
  if (ctx.output === 'json') ctx.stdout(JSON.stringify(ready))
  else {
    ctx.stdout(`attestor ${index} listening on ${a.url} (rails: ${a.health.rails.join(', ') || 'none deployed'})`)
    ctx.stdout(`${label(ctx, 'keys')}evm ${a.health.evm}, ed25519 ${a.health.ed25519}`)
    ctx.stdout(`${label(ctx, 'daemon')}start it with PARX_XCHAIN_ATTESTOR_URLS="${index}=${a.url}"`)
  }
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve)
    process.once('SIGTERM', resolve)
  })
  await a.stop()
  return 0
}

/** Its own keys: the environment, else the local profile's keys.json (attestors[N], solanaAttestors[N]). */
async function attestorKeys(ctx: CliContext, index: number, dataDir: string | undefined) {
  const [{ existsSync, readFileSync }, { keyFilePath }, { default: bs58 }] = await Promise.all([
    import('node:fs'),
    import('../../config/paths.js'),
    import('bs58'),
  ])
  let evm = ctx.env.PARX_ATTESTOR_KEY
  let ed = ctx.env.PARX_SOLANA_ATTESTOR_KEY
  if ((!evm || !ed) && dataDir && existsSync(keyFilePath(dataDir))) {
    const file = JSON.parse(readFileSync(keyFilePath(dataDir), 'utf8')) as {
      attestors?: string[]
      solanaAttestors?: string[]
    }
    evm ||= file.attestors?.[index]
    ed ||= file.solanaAttestors?.[index]
  }
  if (!evm || !ed) {
    throw new CliError(
      'NO_CREDENTIALS',
      `attestor ${index} has no keys: set PARX_ATTESTOR_KEY (0x + 64 hex) and ` +
        `PARX_SOLANA_ATTESTOR_KEY (base58), or pass --data-dir of a local daemon`,
    )
  }
  if (!/^0x[0-9a-fA-F]{64}$/.test(evm))
    throw new CliError('NO_CREDENTIALS', 'PARX_ATTESTOR_KEY is not 0x followed by 64 hex characters')
  let secret: Uint8Array
  try {
    secret = bs58.decode(ed)
  } catch {
    secret = new Uint8Array()
  }
  if (secret.length !== 64)
    throw new CliError('NO_CREDENTIALS', 'PARX_SOLANA_ATTESTOR_KEY is not a base58 64-byte Solana secret key')
  return { evm: evm as `0x${string}`, ed25519Secret: secret }
}

export function define(ctx: () => CliContext): Command {
  return new Command('attestor')
    .description('run one cross-chain attestor as its own process (its own keys and chain reads)')
    .requiredOption('--index <n>', 'which attestor: 0, 1 or 2')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0 picks a free one)', '0')
    .option('--data-dir <dir>', "local profile: the daemon's data dir, to read this attestor's keys from keys.json")
    .action(async (opts: AttestorOptions) => {
      process.exitCode = await run(opts, ctx())
    })
}
