import { encodeFunctionData, parseAbi } from 'viem'
import { describe, expect, it } from 'vitest'
import { encodeCall } from './encode-call.js'

const abi = parseAbi([
  'function transfer(address to, uint256 amount) returns (bool)',
  'function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)',
  'function permit(address owner, address spender, uint256 value, uint256 deadline, bytes signature)',
  'function pick(uint256 a)',
  'function pick(address a)',
  'function name() view returns (string)',
])
const a = '0x00000000000000000000000000000000000000a1'
const b = '0x00000000000000000000000000000000000000b2'

describe('encodeCall', () => {
  it('encodes exactly as viem does, call after call (the cached item is reused)', () => {
    for (const amount of [1n, 2n, 3n]) {
      expect(encodeCall({ abi, functionName: 'transfer', args: [a, amount] })).toBe(
        encodeFunctionData({ abi, functionName: 'transfer', args: [a, amount] }),
      )
    }
    expect(encodeCall({ abi, functionName: 'name' })).toBe('0x06fdde03')
  })

  it('tells overloads apart by their argument count', () => {
    const vrs = encodeCall({
      abi,
      functionName: 'permit',
      args: [a, b, 1n, 2n, 27, `0x${'11'.repeat(32)}`, `0x${'22'.repeat(32)}`],
    })
    const bytes = encodeCall({ abi, functionName: 'permit', args: [a, b, 1n, 2n, '0x1234'] })
    expect(vrs.slice(0, 10)).toBe(
      encodeFunctionData({
        abi,
        functionName: 'permit',
        args: [a, b, 1n, 2n, 27, `0x${'11'.repeat(32)}`, `0x${'22'.repeat(32)}`],
      }).slice(0, 10),
    )
    expect(bytes).toBe(encodeFunctionData({ abi, functionName: 'permit', args: [a, b, 1n, 2n, '0x1234'] }))
    expect(vrs.slice(0, 10)).not.toBe(bytes.slice(0, 10))
  })

  it('leaves overloads of the same argument count to viem, which picks by the argument types', () => {
    expect(encodeCall({ abi, functionName: 'pick', args: [5n] })).toBe(
      encodeFunctionData({ abi, functionName: 'pick', args: [5n] }),
    )
    expect(encodeCall({ abi, functionName: 'pick', args: [a] })).toBe(
      encodeFunctionData({ abi, functionName: 'pick', args: [a] }),
    )
  })
})
