import { createRequire } from 'node:module'
import type { Hex } from 'viem'

const require = createRequire(import.meta.url)

/**
 * Compiles one test-only Solidity source held in a string (a hostile token, a smart wallet) with
 * the project's solc, optimised as the shipped contracts are, and returns each contract's creation
 * bytecode by name. Test fixtures only: shipped contracts go through contracts/evm/build.ts.
 */
export function compileInline(file: string, source: string): Record<string, Hex> {
  const solc = require('solc') as { compile(input: string): string }
  const input = {
    language: 'Solidity',
    sources: { [file]: { content: source } },
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: 'cancun',
      outputSelection: { '*': { '*': ['evm.bytecode.object'] } },
    },
  }
  const out = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: Array<{ severity: string; formattedMessage: string }>
    contracts: Record<string, Record<string, { evm: { bytecode: { object: string } } }>>
  }
  const errors = (out.errors ?? []).filter((e) => e.severity === 'error')
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'))
  return Object.fromEntries(
    Object.entries(out.contracts[file]!).map(([name, c]) => [name, `0x${c.evm.bytecode.object}` as Hex]),
  )
}
