import { readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type AbiEntry, renderArtifact } from './render-artifact.js'

/** Folder of this file: the Solidity sources sit in `src/`, the generated modules in `artifacts/`. */
export const evmDir = dirname(fileURLToPath(import.meta.url))
export const srcDir = join(evmDir, 'src')
export const artifactsDir = join(evmDir, 'artifacts')

/**
 * Contracts whose runtime code is placed with `anvil_setCode`, so callers need the deployed code,
 * and which therefore must not have immutables: no constructor runs to fill them in.
 */
const WITH_DEPLOYED_BYTECODE = new Set([
  'Multicall3',
  'Permit2Lite',
  'X402Permit2ProxyLite',
  'X402UptoPermit2ProxyLite',
  'X402BatchSettlement',
  'ERC3009DepositCollector',
  'Permit2DepositCollector',
  ...['V1_0', 'V1_1'].flatMap((v) => [
    `AuthCaptureEscrow${v}`,
    `AuthCaptureTokenStore${v}`,
    `AuthCaptureERC3009Collector${v}`,
    `AuthCapturePermit2Collector${v}`,
    `AuthCaptureOperatorRefundCollector${v}`,
  ]),
])
/** Prebuilt Uniswap v2 contracts (solc 0.5.16): taken from the npm build, not recompiled. */
const UNISWAP_V2 = ['UniswapV2Factory', 'UniswapV2Pair'] as const

const require = createRequire(import.meta.url)

type SolcJs = {
  version(): string
  compile(input: string, callbacks: { import(path: string): { contents: string } | { error: string } }): string
}
type SolcContract = {
  abi: AbiEntry[]
  evm: {
    bytecode: { object: string }
    deployedBytecode: { object: string; immutableReferences?: Record<string, unknown> }
  }
}
type SolcOutput = {
  errors?: { severity: 'error' | 'warning' | 'info'; formattedMessage: string }[]
  contracts?: Record<string, Record<string, SolcContract>>
}

export type CompileResult = {
  /** Artifact file name (e.g. `RfqSwap.ts`) to its exact contents. */
  files: Record<string, string>
  warnings: string[]
}

/**
 * Compiles every `src/*.sol` with the pinned solc-js and renders all artifact modules in memory,
 * including the Uniswap v2 ones. Pure apart from reading files, so the staleness test can compare.
 *
 * @example
 * const { files } = compileAll()
 * Object.keys(files) // ['Multicall3.ts', 'PermitToken.ts', 'RfqSwap.ts', ...]
 */
export function compileAll(): CompileResult {
  const solc = require('solc') as SolcJs
  const sources: Record<string, { content: string }> = {}
  for (const file of readdirSync(srcDir)
    .filter((f) => f.endsWith('.sol'))
    .sort()) {
    sources[`src/${file}`] = { content: readFileSync(join(srcDir, file), 'utf8') }
  }
  const input = {
    language: 'Solidity',
    sources,
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: 'cancun',
      outputSelection: Object.fromEntries(
        Object.keys(sources).map((k) => [
          k,
          {
            '*': [
              'abi',
              'evm.bytecode.object',
              'evm.deployedBytecode.object',
              'evm.deployedBytecode.immutableReferences',
            ],
          },
        ]),
      ),
    },
  }
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: resolveImport })) as SolcOutput
  const problems = output.errors ?? []
  const errors = problems.filter((e) => e.severity === 'error')
  if (errors.length > 0) throw new Error(`solc failed:\n${errors.map((e) => e.formattedMessage).join('\n')}`)

  const compiler = `solc ${solc.version()}, optimizer 200 runs, evm cancun`
  const files: Record<string, string> = {}
  for (const [sourceKey, contracts] of Object.entries(output.contracts ?? {})) {
    for (const [name, c] of Object.entries(contracts)) {
      // Interfaces and abstract contracts have no code and nothing to deploy.
      if (c.evm.bytecode.object === '') continue
      const runtimeOnly = WITH_DEPLOYED_BYTECODE.has(name)
      if (runtimeOnly && Object.keys(c.evm.deployedBytecode.immutableReferences ?? {}).length > 0) {
        throw new Error(`${name} is installed with anvil_setCode and must not declare immutables`)
      }
      files[`${name}.ts`] = renderArtifact({
        source: `contracts/evm/${sourceKey} (${compiler})`,
        abi: c.abi,
        bytecode: c.evm.bytecode.object,
        deployedBytecode: runtimeOnly ? c.evm.deployedBytecode.object : undefined,
      })
    }
  }
  for (const name of UNISWAP_V2) files[`${name}.ts`] = uniswapArtifact(name)
  return {
    files: Object.fromEntries(Object.entries(files).sort(([a], [b]) => (a < b ? -1 : 1))),
    warnings: problems.filter((e) => e.severity === 'warning').map((e) => e.formattedMessage),
  }
}

/** Only OpenZeppelin may be imported from outside `src/`; anything else is a mistake to surface. */
function resolveImport(path: string): { contents: string } | { error: string } {
  if (!path.startsWith('@openzeppelin/contracts/')) return { error: `import outside src/ and OpenZeppelin: ${path}` }
  try {
    return { contents: readFileSync(require.resolve(path), 'utf8') }
  } catch (e) {
    return { error: `cannot read ${path}: ${(e as Error).message}` }
  }
}

function uniswapArtifact(name: (typeof UNISWAP_V2)[number]): string {
  const jsonPath = require.resolve(`@uniswap/v2-core/build/${name}.json`)
  const { version } = require('@uniswap/v2-core/package.json') as { version: string }
  const built = JSON.parse(readFileSync(jsonPath, 'utf8')) as { abi: AbiEntry[]; bytecode: string }
  return renderArtifact({
    source: `@uniswap/v2-core@${version} build/${name}.json`,
    // `constant` and `payable` are the pre-0.5 spellings of `stateMutability`, which is also present.
    abi: built.abi.map(({ constant: _c, payable: _p, ...entry }) => entry),
    bytecode: built.bytecode,
  })
}
