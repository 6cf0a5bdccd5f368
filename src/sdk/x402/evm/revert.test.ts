import { encodeErrorResult, parseAbi } from 'viem'
import { describe, expect, it } from 'vitest'
import { reasons } from '../reasons.js'
import { explainRevert } from './revert.js'

const abi = parseAbi([
  'error Error(string)',
  'error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed)',
  'error ERC3009UsedAuthorization(address authorizer, bytes32 nonce)',
  'error SomethingElse()',
])
const zero = '0x0000000000000000000000000000000000000000'

describe('explainRevert', () => {
  it('names OpenZeppelin custom errors by the reference reasons', () => {
    expect(
      explainRevert(encodeErrorResult({ abi, errorName: 'ERC20InsufficientBalance', args: [zero, 1n, 2n] })),
    ).toMatchObject({ reason: reasons.evmInsufficientBalance })
    expect(
      explainRevert(
        encodeErrorResult({ abi, errorName: 'ERC3009UsedAuthorization', args: [zero, `0x${'11'.repeat(32)}`] }),
      ).reason,
    ).toBe(reasons.evmNonceAlreadyUsed)
  })

  it('reads FiatToken revert strings the way the reference facilitator does', () => {
    const msg = (text: string) => explainRevert(encodeErrorResult({ abi, errorName: 'Error', args: [text] }))
    expect(msg('FiatTokenV2: invalid signature').reason).toBe(reasons.evmSignature)
    expect(msg('FiatTokenV2: authorization is expired').reason).toBe(reasons.evmValidBefore)
    expect(msg('FiatTokenV2: authorization is used or canceled').reason).toBe(reasons.evmNonceAlreadyUsed)
    expect(msg('ERC20: transfer amount exceeds balance')).toEqual({
      reason: reasons.evmInsufficientBalance,
      message: 'the token reverted: ERC20: transfer amount exceeds balance',
    })
  })

  it('falls back to a simulation failure for anything else', () => {
    expect(explainRevert(encodeErrorResult({ abi, errorName: 'SomethingElse' })).reason).toBe(
      reasons.evmSimulationFailed,
    )
    expect(explainRevert('0x').reason).toBe(reasons.evmSimulationFailed)
  })
})
