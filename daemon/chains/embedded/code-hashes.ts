import { type Address, type Hex, keccak256, type PublicClient } from 'viem'
import { BaseError } from '../../../src/errors/index.js'

/** EXTCODEHASH of an account that exists without code (an account that does not exist gives 0). */
export const EMPTY_CODE_HASH = keccak256('0x')
export const NO_ACCOUNT_HASH: Hex = `0x${'00'.repeat(32)}`

/** Whether `hash` (from codeHashes) is an account with code. */
export const hasCode = (hash: Hex) => hash !== NO_ACCOUNT_HASH && hash !== EMPTY_CODE_HASH

/**
 * The code hash of each address, in one eth_call: init code (a call without `to` runs it and
 * deploys nothing) that stores EXTCODEHASH of every address in memory and returns it. A start asks
 * this instead of reading each contract's code back: eth_getCode of the recorded contracts and a
 * rewrite of the canonical ones sent about 200 KB over the socket per chain at every start.
 * What init code returns is the code it would deploy, and EIP-3541 refuses code starting with 0xEF:
 * a first hash starting with that byte (1 in 256) failed the call, so the answer leads with a zero byte.
 */
export async function codeHashes(client: Pick<PublicClient, 'request'>, addresses: readonly Address[]): Promise<Hex[]> {
  const word = (n: number) => n.toString(16).padStart(4, '0')
  // PUSH20 address, EXTCODEHASH, PUSH2 1 + offset, MSTORE ... PUSH2 1 + size, PUSH1 0, RETURN (byte 0 stays zero)
  const code =
    addresses.map((a, i) => `73${a.slice(2).toLowerCase()}3f61${word(1 + i * 32)}52`).join('') +
    `61${word(1 + addresses.length * 32)}6000f3`
  const out = (await client.request({ method: 'eth_call', params: [{ data: `0x${code}` }, 'latest'] } as never)) as Hex
  if (typeof out !== 'string' || out.length !== 4 + addresses.length * 64 || !out.startsWith('0x00')) {
    throw new BaseError(
      'CHAIN_UNAVAILABLE',
      `the chain answered ${String(out).slice(0, 80)} to a code-hash read of ${addresses.length} addresses`,
    )
  }
  return addresses.map((_, i) => `0x${out.slice(4 + i * 64, 4 + (i + 1) * 64)}` as Hex)
}
