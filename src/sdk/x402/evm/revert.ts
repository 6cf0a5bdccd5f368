import { decodeErrorResult, type Hex, parseAbi } from 'viem'
import { type Reason, reasons } from '../reasons.js'

/** Custom errors of OpenZeppelin tokens (and ours), plus Error(string) for FiatToken-style reverts. */
const errorsAbi = parseAbi([
  'error Error(string)',
  'error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed)',
  'error ERC20InsufficientAllowance(address spender, uint256 allowance, uint256 needed)',
  'error ERC2612ExpiredSignature(uint256 deadline)',
  'error ERC2612InvalidSigner(address signer, address owner)',
  'error InvalidPermitSignature(address owner)',
  'error InvalidAccountNonce(address account, uint256 currentNonce)',
  'error ERC3009InvalidSignature()',
  'error ERC3009InvalidAuthorizationTime(uint256 validAfter, uint256 validBefore)',
  'error ERC3009UsedAuthorization(address authorizer, bytes32 nonce)',
])

const byError: Record<string, Reason> = {
  ERC20InsufficientBalance: reasons.evmInsufficientBalance,
  ERC20InsufficientAllowance: reasons.evmSignature,
  ERC2612ExpiredSignature: reasons.evmValidBefore,
  ERC2612InvalidSigner: reasons.evmSignature,
  InvalidPermitSignature: reasons.evmSignature,
  InvalidAccountNonce: reasons.evmNonceAlreadyUsed,
  ERC3009InvalidSignature: reasons.evmSignature,
  ERC3009InvalidAuthorizationTime: reasons.evmValidBefore,
  ERC3009UsedAuthorization: reasons.evmNonceAlreadyUsed,
}

/** Revert strings of FiatToken and older ERC-20s, matched as the reference facilitator matches them. */
const byMessage: Array<[RegExp, Reason]> = [
  [/authorization.*(expired|valid before)|permit is expired|expired deadline/i, reasons.evmValidBefore],
  [/authorization.*not.*(yet )?valid/i, reasons.evmValidAfter],
  [/authorization.*(used|canceled)/i, reasons.evmNonceAlreadyUsed],
  [/exceeds balance|insufficient balance/i, reasons.evmInsufficientBalance],
  [/invalid signature|signer mismatch|invalid signature [vs]/i, reasons.evmSignature],
]

/** The reason and a readable message for a reverted payment group. */
export function explainRevert(data: Hex | undefined): { reason: Reason; message: string } {
  if (!data || data === '0x')
    return { reason: reasons.evmSimulationFailed, message: 'the transfer reverted without a reason' }
  try {
    const { errorName, args } = decodeErrorResult({ abi: errorsAbi, data })
    if (errorName === 'Error') {
      const text = String(args?.[0] ?? '')
      const hit = byMessage.find(([re]) => re.test(text))
      return { reason: hit?.[1] ?? reasons.evmSimulationFailed, message: `the token reverted: ${text}` }
    }
    const shown = (args ?? []).map((a) => String(a)).join(', ')
    return {
      reason: byError[errorName] ?? reasons.evmSimulationFailed,
      message: `the token reverted with ${errorName}(${shown})`,
    }
  } catch {
    return { reason: reasons.evmSimulationFailed, message: `the transfer reverted (${data.slice(0, 10)})` }
  }
}
