import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const root = fileURLToPath(new URL('..', import.meta.url))
const resolveFrom = (packageDir: string, id: string) =>
  createRequire(join(root, packageDir, 'package.json')).resolve(id)

describe('installed dependencies', () => {
  // package.json's overrides give the official x402 packages the project's viem. Without them npm nests
  // a newer viem under each (with its own @noble/curves and ox): two copies of the hashing and curve code
  // in a process that both buys and sells, each compiled and cached apart, and an ERESOLVE warning at
  // every install (that viem wants an mppx the registry does not have).
  it.each(['node_modules/@x402/evm', 'node_modules/@x402/extensions'])('%s uses the project viem', (dir) => {
    expect(resolveFrom(dir, 'viem')).toBe(resolveFrom('.', 'viem'))
  })
})
