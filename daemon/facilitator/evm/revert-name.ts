import { type Abi, decodeErrorResult, type Hex } from 'viem'

/**
 * A contract's revert by its custom error's name, read against `abi`'s errors (the escrows' and the token's under
 * them).
 */
export function revertNamer(abi: Abi): (data: Hex | undefined) => string {
  const errorsAbi = abi.filter((e) => e.type === 'error')
  return (data) => {
    if (!data || data === '0x') return 'no revert data'
    try {
      return decodeErrorResult({ abi: errorsAbi, data }).errorName
    } catch {
      return `revert ${data.slice(0, 10)}`
    }
  }
}
