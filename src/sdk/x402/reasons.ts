/**
 * Every `invalidReason` / `errorReason` the facilitator answers with, in one place.
 * Where the reference x402 packages (2.27) have a name for a failure, it is theirs verbatim, so
 * sellers branching on reasons work unchanged; names of our own follow the same pattern.
 */
export const reasons = {
  // protocol level (x402 core)
  invalidX402Version: 'invalid_x402_version',
  invalidNetwork: 'invalid_network',
  invalidScheme: 'invalid_scheme',
  unsupportedScheme: 'unsupported_scheme',
  invalidPayload: 'invalid_payload',
  invalidPaymentRequirements: 'invalid_payment_requirements',
  insufficientFunds: 'insufficient_funds',
  unexpectedVerifyError: 'unexpected_verify_error',
  unexpectedSettleError: 'unexpected_settle_error',
  duplicateSettlement: 'duplicate_settlement',
  settlementPending: 'settlement_pending',
  // payment-identifier extension (ours: the reference leaves idempotency to each server)
  invalidPaymentIdentifier: 'invalid_payment_identifier',
  paymentIdentifierMismatch: 'payment_identifier_mismatch',

  // EVM exact (reference names)
  evmNetworkMismatch: 'invalid_exact_evm_network_mismatch',
  evmMissingEip712Domain: 'invalid_exact_evm_missing_eip712_domain',
  evmRecipientMismatch: 'invalid_exact_evm_recipient_mismatch',
  evmSignature: 'invalid_exact_evm_signature',
  evmValidBefore: 'invalid_exact_evm_payload_authorization_valid_before',
  evmValidAfter: 'invalid_exact_evm_payload_authorization_valid_after',
  evmValueMismatch: 'invalid_exact_evm_payload_authorization_value_mismatch',
  evmTransactionFailed: 'invalid_exact_evm_transaction_failed',
  evmTokenNameMismatch: 'invalid_exact_evm_token_name_mismatch',
  evmTokenVersionMismatch: 'invalid_exact_evm_token_version_mismatch',
  evmNonceAlreadyUsed: 'invalid_exact_evm_nonce_already_used',
  evmInsufficientBalance: 'invalid_exact_evm_insufficient_balance',
  evmSimulationFailed: 'invalid_exact_evm_transaction_simulation_failed',
  unsupportedPayloadType: 'unsupported_payload_type',
  // EVM erc2612 (ours): the permit names a spender, and its nonce is the token's counter
  evmSpenderMismatch: 'invalid_exact_evm_permit_spender_mismatch',
  evmNonceMismatch: 'invalid_exact_evm_permit_nonce_mismatch',
  // EVM permit2 (reference names)
  permit2InvalidSpender: 'invalid_permit2_spender',
  permit2RecipientMismatch: 'invalid_permit2_recipient_mismatch',
  permit2DeadlineExpired: 'permit2_deadline_expired',
  permit2NotYetValid: 'permit2_not_yet_valid',
  permit2AmountMismatch: 'permit2_amount_mismatch',
  permit2TokenMismatch: 'permit2_token_mismatch',
  permit2InvalidSignature: 'invalid_permit2_signature',
  permit2AllowanceRequired: 'permit2_allowance_required',
  permit2SimulationFailed: 'permit2_simulation_failed',
  permit2InsufficientBalance: 'permit2_insufficient_balance',
  permit2InvalidNonce: 'permit2_invalid_nonce',
  permit2ProxyNotDeployed: 'permit2_proxy_not_deployed',
  permit2InvalidAmount: 'permit2_invalid_amount',
  permit2InvalidDestination: 'permit2_invalid_destination',
  permit2InvalidOwner: 'permit2_invalid_owner',
  permit2PaymentTooEarly: 'permit2_payment_too_early',
  // EVM permit2 with the EIP-2612 gas-sponsoring extension (reference names)
  eip2612ExtensionFormat: 'invalid_eip2612_extension_format',
  eip2612FromMismatch: 'eip2612_from_mismatch',
  eip2612AssetMismatch: 'eip2612_asset_mismatch',
  eip2612SpenderNotPermit2: 'eip2612_spender_not_permit2',
  eip2612DeadlineExpired: 'eip2612_deadline_expired',
  permit2612AmountMismatch: 'permit2_2612_amount_mismatch',
  // EVM upto (reference names): Permit2 for at most an amount, settled for what was used
  uptoInvalidScheme: 'invalid_upto_evm_scheme',
  uptoTransactionFailed: 'invalid_upto_evm_transaction_failed',
  uptoSettlementExceedsAmount: 'invalid_upto_evm_payload_settlement_exceeds_amount',
  uptoAmountExceedsPermitted: 'upto_amount_exceeds_permitted',
  uptoUnauthorizedFacilitator: 'upto_unauthorized_facilitator',
  uptoFacilitatorMismatch: 'upto_facilitator_mismatch',
  // smart-wallet payers (reference name for ERC-6492)
  eip6492FactoryNotAllowed: 'eip6492_factory_not_allowed',

  // Solana exact (reference names)
  svmNetworkMismatch: 'invalid_exact_svm_network_mismatch',
  svmMissingFeePayer: 'invalid_exact_svm_payload_missing_fee_payer',
  svmFeePayerNotManaged: 'invalid_exact_svm_fee_payer_not_managed_by_facilitator',
  svmFeePayerMismatch: 'invalid_exact_svm_fee_payer_mismatch',
  svmTransactionUndecodable: 'invalid_exact_svm_payload_transaction_could_not_be_decoded',
  svmSignatureInvalid: 'invalid_exact_svm_payload_signature_invalid',
  svmInstructionsLength: 'invalid_exact_svm_payload_transaction_instructions_length',
  svmComputeLimitInstruction: 'invalid_exact_svm_payload_transaction_instructions_compute_limit_instruction',
  svmComputePriceInstruction: 'invalid_exact_svm_payload_transaction_instructions_compute_price_instruction',
  svmComputePriceTooHigh: 'invalid_exact_svm_payload_transaction_instructions_compute_price_instruction_too_high',
  svmNoTransferInstruction: 'invalid_exact_svm_payload_no_transfer_instruction',
  svmFeePayerTransferringFunds: 'invalid_exact_svm_payload_transaction_fee_payer_transferring_funds',
  svmMintMismatch: 'invalid_exact_svm_payload_mint_mismatch',
  svmRecipientMismatch: 'invalid_exact_svm_payload_recipient_mismatch',
  svmAmountMismatch: 'invalid_exact_svm_payload_amount_mismatch',
  svmUnknownOptionalInstruction: 'invalid_exact_svm_payload_unknown_optional_instruction',
  svmSimulationFailed: 'invalid_exact_svm_transaction_simulation_failed',
  svmTransactionFailed: 'invalid_exact_svm_transaction_failed',
  // Solana delegated-spl (ours)
  svmDelegateMismatch: 'invalid_delegated_spl_delegate_mismatch',
  svmDelegatedAmount: 'invalid_delegated_spl_delegated_amount_insufficient',
  svmInsufficientBalance: 'invalid_delegated_spl_insufficient_balance',
  svmSplSignature: 'invalid_delegated_spl_signature',
  svmSplRecipientMismatch: 'invalid_delegated_spl_recipient_mismatch',
  svmSplAmountMismatch: 'invalid_delegated_spl_amount_mismatch',
  svmSplDeadline: 'invalid_delegated_spl_deadline',
  svmSplNotYetValid: 'invalid_delegated_spl_not_yet_valid',
  svmSplNonceUsed: 'invalid_delegated_spl_nonce_already_used',
  svmSplTokenAccount: 'invalid_delegated_spl_token_account',
} as const

export type Reason = (typeof reasons)[keyof typeof reasons]
