import { type Address, zeroAddress } from 'viem'
import { describe, expect, it } from 'vitest'
import { networks } from '../../../../src/networks/registry.js'
import { AUTH_CAPTURE_V1_0 } from '../../../../src/sdk/x402/evm/auth-capture/contracts.js'
import type { Resolved } from '../../method.js'
import { readTerms } from './terms.js'

const operator: Address = '0x00000000000000000000000000000000000000aa'
const authorizer: Address = '0x00000000000000000000000000000000000000bb'
const payment = (extra: Record<string, unknown>) =>
  ({
    scheme: 'auth-capture',
    network: networks['local-base']!.caip2,
    version: 2,
    payload: {},
    spec: networks['local-base']!,
    token: { symbol: 'USDC', address: '0x1', decimals: 6 },
    requirements: {
      scheme: 'auth-capture',
      network: networks['local-base']!.caip2,
      amount: '1000',
      asset: '0x1',
      payTo: '0x2',
      maxTimeoutSeconds: 60,
      extra: {
        name: 'USD Coin',
        version: '2',
        captureAuthorizer: operator,
        receiverAuthorizer: authorizer,
        captureDeadline: 2_000_000_000,
        refundDeadline: 2_000_001_000,
        feeRecipient: zeroAddress,
        minFeeBps: 0,
        maxFeeBps: 0,
        ...extra,
      },
    },
  }) as unknown as Resolved
const reason = (extra: Record<string, unknown>) => {
  const t = readTerms(payment(extra), operator)
  return 'reason' in t ? t.reason : 'ok'
}

describe('auth-capture terms', () => {
  it('reads a delegated escrow route, v1.1 by default and the v1.0 pin', () => {
    expect(readTerms(payment({}), operator)).toMatchObject({
      flow: 'escrow',
      captureMode: 'sync',
      method: 'eip3009',
      deployment: { version: 'v1.1' },
      receiverAuthorizer: authorizer,
    })
    expect(readTerms(payment({ authCaptureEscrow: AUTH_CAPTURE_V1_0.escrow }), operator)).toMatchObject({
      deployment: { version: 'v1.0' },
    })
  })

  it('refuses what the binding refuses', () => {
    expect(reason({ autoCapture: true })).toBe('invalid_auth_capture_evm_unsupported_payment_flow')
    expect(reason({ autoCapture: false })).toBe('ok')
    expect(reason({ paymentFlow: 'later' })).toBe('invalid_auth_capture_evm_unsupported_payment_flow')
    expect(reason({ operatorType: 'custom' })).toBe('invalid_auth_capture_evm_unsupported_operator_type')
    expect(reason({ operatorType: 'policy' })).toBe('invalid_auth_capture_evm_unsupported_operator_type')
    expect(reason({ policy: authorizer })).toBe('invalid_auth_capture_evm_unsupported_operator_type')
    expect(reason({ policy: zeroAddress })).toBe('ok')
    expect(reason({ captureAuthorizer: authorizer })).toBe('invalid_auth_capture_evm_operator_not_admitted')
    expect(reason({ authCaptureEscrow: '0x13AC3b34322D12FE27D5e192D0c2b2266d4F29CB' })).toBe(
      'invalid_auth_capture_evm_extra',
    )
    expect(reason({ assetTransferMethod: 'erc2612' })).toBe(
      'invalid_auth_capture_evm_unsupported_asset_transfer_method',
    )
    // A zero fee recipient lets the submitter send any fee anywhere: zero bounds only.
    expect(reason({ maxFeeBps: 100 })).toBe('invalid_auth_capture_evm_extra')
    expect(reason({ minFeeBps: 200, maxFeeBps: 100, feeRecipient: authorizer })).toBe('invalid_auth_capture_evm_extra')
    expect(reason({ paymentFlow: 'authorization', captureMode: 'sync' })).toBe('invalid_auth_capture_evm_extra')
    // Collect-only (no receiver authorizer): a sync finalize would strand the hold.
    expect(reason({ receiverAuthorizer: undefined })).toBe('invalid_auth_capture_evm_extra')
    expect(reason({ receiverAuthorizer: undefined, captureMode: 'deferred' })).toBe('ok')
    expect(reason({ captureDeadline: undefined })).toBe('invalid_auth_capture_evm_extra')
  })
})
