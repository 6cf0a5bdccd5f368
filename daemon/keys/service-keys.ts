import { randomBytes } from 'node:crypto'
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs'
import { Keypair } from '@solana/web3.js'
import bs58 from 'bs58'
import type { Hex } from 'viem'
import { generatePrivateKey } from 'viem/accounts'
import type { ResolvedConfig } from '../../src/config/load.js'
import { keyFilePath } from '../../src/config/paths.js'
import { BaseError } from '../../src/errors/index.js'
import { keyFileSchema } from './key-file-schema.js'

/** The service's own keys. On the local profile they are generated into the data dir (0600). */
export type ServiceKeys = {
  /** Funds and owns the embedded deployments; mints for the faucet. Local profile only. */
  deployer: Hex
  solver: Hex
  facilitator: Hex
  attestors: [Hex, Hex, Hex]
  solanaSolver: Uint8Array
  solanaFacilitator: Uint8Array
  solanaAttestors: [Uint8Array, Uint8Array, Uint8Array]
  /** Local profile only: mint authority of the embedded SPL mints. */
  solanaMintAuthority: Uint8Array
  operatorToken: string
  /**
   * Seals the platform's agent wallet keys at rest (daemon/platform/wallet-seal.ts). Generated into
   * the keys file on the local profile; `keys.platformWallet` / PARX_PLATFORM_WALLET_KEY elsewhere
   * (without it, agents cannot be created there).
   */
  platformWallet?: Hex
  /**
   * Signs payment receipts (daemon/buyer/receipts/), its address published in the manifest.
   * Generated into the keys file on the local profile; `keys.receipt` / PARX_RECEIPT_KEY elsewhere
   * (without it, pays carry no signed receipt).
   */
  receipt?: Hex
}

type KeyFile = Omit<ServiceKeys, 'solanaSolver' | 'solanaFacilitator' | 'solanaAttestors' | 'solanaMintAuthority'> & {
  solanaSolver: string
  solanaFacilitator: string
  solanaAttestors: [string, string, string]
  solanaMintAuthority: string
}

export function loadServiceKeys(config: ResolvedConfig): ServiceKeys {
  if (config.profile === 'local') {
    const local = fromFile(loadOrCreateKeyFile(config.dataDir))
    // A configured receipt key wins over the generated one: replicas sharing a store sign with one key.
    return config.keys.receipt ? { ...local, receipt: config.keys.receipt as Hex } : local
  }
  // startDaemon lists every missing setting first (src/config/problems.ts); this stays as a guard.
  const missing = (name: string, env: string) =>
    new BaseError('CONFIG_INVALID', `the ${config.profile} profile needs the ${name} key`, {
      details: `Set it in the config file (serve.keys / serve.auth) or the environment (${env}).`,
    })
  const k = config.keys
  if (!k.solver) throw missing('solver', 'PARX_SOLVER_KEY')
  if (!k.facilitator) throw missing('facilitator', 'PARX_FACILITATOR_KEY')
  if (!k.solanaSolver) throw missing('Solana solver', 'PARX_SOLANA_SOLVER_KEY')
  if (!k.solanaFacilitator) throw missing('Solana facilitator', 'PARX_SOLANA_FACILITATOR_KEY')
  if (k.attestors?.length !== 3) throw missing('three attestor', 'PARX_ATTESTOR_KEYS')
  if (k.solanaAttestors?.length !== 3) throw missing('three Solana attestor', 'PARX_SOLANA_ATTESTOR_KEYS')
  if (!config.auth.operatorToken) throw missing('operator token', 'PARX_OPERATOR_TOKEN')
  return {
    deployer: k.solver as Hex,
    solver: k.solver as Hex,
    facilitator: k.facilitator as Hex,
    attestors: k.attestors as [Hex, Hex, Hex],
    solanaSolver: bs58.decode(k.solanaSolver),
    solanaFacilitator: bs58.decode(k.solanaFacilitator),
    solanaAttestors: k.solanaAttestors.map((s) => bs58.decode(s)) as [Uint8Array, Uint8Array, Uint8Array],
    // Real mints belong to their issuers; nothing is minted outside the local profile.
    solanaMintAuthority: new Uint8Array(64),
    operatorToken: config.auth.operatorToken,
    platformWallet: k.platformWallet as Hex | undefined,
    receipt: k.receipt as Hex | undefined,
  }
}

/** Reads the local key file, creating it on first start. Written 0600 and never logged. */
export function loadOrCreateKeyFile(dataDir: string): KeyFile {
  const file = keyFilePath(dataDir)
  if (existsSync(file)) {
    const keys = readKeyFile(file)
    // A data dir from before the platform (or its receipts): add the missing keys, keeping every other key as it was.
    if (!keys.platformWallet || !keys.receipt) {
      keys.platformWallet ??= generatePrivateKey()
      keys.receipt ??= generatePrivateKey()
      writeKeyFile(file, keys)
    }
    return keys
  }
  const sol = () => bs58.encode(Keypair.generate().secretKey)
  const keys: KeyFile = {
    deployer: generatePrivateKey(),
    solver: generatePrivateKey(),
    facilitator: generatePrivateKey(),
    attestors: [generatePrivateKey(), generatePrivateKey(), generatePrivateKey()],
    solanaSolver: sol(),
    solanaFacilitator: sol(),
    solanaAttestors: [sol(), sol(), sol()],
    solanaMintAuthority: sol(),
    operatorToken: `parxop_${randomBytes(24).toString('hex')}`,
    platformWallet: generatePrivateKey(),
    receipt: generatePrivateKey(),
  }
  writeKeyFile(file, keys)
  return keys
}

function writeKeyFile(file: string, keys: KeyFile): void {
  writeFileSync(file, JSON.stringify(keys, null, 2), { mode: 0o600 })
  chmodSync(file, 0o600)
}

const whatToDo =
  'restore it from a backup, or move it away and start with ' +
  '--fresh for new keys (the chain state belongs to the old ones)'

/** Reads and checks keys.json; a damaged one is named with the key at fault and what to do. */
function readKeyFile(file: string): KeyFile {
  let data: unknown
  try {
    data = JSON.parse(readFileSync(file, 'utf8'))
  } catch (e) {
    throw new BaseError('KEY_FILE_INVALID', `${file} is not valid JSON; ${whatToDo}`, { cause: e })
  }
  const parsed = keyFileSchema.safeParse(data)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!
    const key = issue.path.join('.') || '(root)'
    const missing = issue.code === 'invalid_type' && issue.received === 'undefined'
    throw new BaseError(
      'KEY_FILE_INVALID',
      `${file} ${missing ? 'is missing' : 'has an invalid'} key ` +
        `'${key}'${missing ? '' : ` (${issue.message})`}; ${whatToDo}`,
    )
  }
  return parsed.data as KeyFile
}

/** The key file as the daemon uses it (also the keys `parx chains` seeds and prints). */
export function fromFile(f: KeyFile): ServiceKeys {
  return {
    ...f,
    solanaSolver: bs58.decode(f.solanaSolver),
    solanaFacilitator: bs58.decode(f.solanaFacilitator),
    solanaAttestors: f.solanaAttestors.map((s) => bs58.decode(s)) as [Uint8Array, Uint8Array, Uint8Array],
    solanaMintAuthority: bs58.decode(f.solanaMintAuthority),
  }
}
