// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {AuthCaptureEscrow} from "./AuthCaptureEscrow.sol";
import {AuthCaptureTokenCollector} from "./AuthCaptureTokenCollector.sol";
import {AUTH_CAPTURE_TOKEN_STORE_V1_1} from "./AuthCaptureDeployments.sol";

/// @title The v1.1 auth-capture escrow (the x402 default), for the embedded chains.
/// @notice `charge` and `capture` take an absolute `feeAmount`, which must lie in
/// `[amount * minFeeBps / 10000, amount * maxFeeBps / 10000]` (the escrow's integer division), so
/// the fee of a partial capture scales with what was captured. Placed at
/// 0xf96815976523E00e65Be8f34cA5e64b4f41EB19c, the escrow a payment without `extra.authCaptureEscrow` uses.
contract AuthCaptureEscrowV1_1 is AuthCaptureEscrow {
    event PaymentCharged(
        bytes32 indexed paymentInfoHash,
        PaymentInfo paymentInfo,
        uint256 amount,
        address tokenCollector,
        uint256 feeAmount,
        address feeReceiver
    );
    event PaymentCaptured(bytes32 indexed paymentInfoHash, uint256 amount, uint256 feeAmount, address feeReceiver);

    error FeeAmountOutOfRange(uint256 feeAmount, uint256 minFee, uint256 maxFee);

    function tokenStoreImplementation() public pure override returns (address) {
        return AUTH_CAPTURE_TOKEN_STORE_V1_1;
    }

    /// @notice Collects `amount` and pays it out at once (no hold); it stays refundable.
    function charge(
        PaymentInfo calldata paymentInfo,
        uint256 amount,
        address tokenCollector,
        bytes calldata collectorData,
        uint256 feeAmount,
        address feeReceiver
    ) external nonReentrant onlySender(paymentInfo.operator) validAmount(amount) {
        _validatePayment(paymentInfo, amount);
        _validateFee(paymentInfo, amount, feeAmount, feeReceiver);
        bytes32 paymentInfoHash = _recordCharge(paymentInfo, amount);
        emit PaymentCharged(paymentInfoHash, paymentInfo, amount, tokenCollector, feeAmount, feeReceiver);
        _collectTokens(paymentInfo, amount, tokenCollector, collectorData, AuthCaptureTokenCollector.CollectorType.Payment);
        _distributeTokens(paymentInfo.token, paymentInfo.receiver, amount, feeAmount, feeReceiver);
    }

    /// @notice Pays `amount` of the hold to the receiver (and its fee); may run several times.
    function capture(PaymentInfo calldata paymentInfo, uint256 amount, uint256 feeAmount, address feeReceiver)
        external
        nonReentrant
        onlySender(paymentInfo.operator)
        validAmount(amount)
    {
        _validateFee(paymentInfo, amount, feeAmount, feeReceiver);
        bytes32 paymentInfoHash = _recordCapture(paymentInfo, amount);
        emit PaymentCaptured(paymentInfoHash, amount, feeAmount, feeReceiver);
        _distributeTokens(paymentInfo.token, paymentInfo.receiver, amount, feeAmount, feeReceiver);
    }

    /// @dev Bounds from the payment's basis points applied to this amount; `amount` fits uint120,
    /// so neither product overflows.
    function _validateFee(PaymentInfo calldata paymentInfo, uint256 amount, uint256 feeAmount, address feeReceiver)
        private
        pure
    {
        uint256 minFee = amount * paymentInfo.minFeeBps / _MAX_FEE_BPS;
        uint256 maxFee = amount * paymentInfo.maxFeeBps / _MAX_FEE_BPS;
        if (feeAmount < minFee || feeAmount > maxFee) revert FeeAmountOutOfRange(feeAmount, minFee, maxFee);
        _validateFeeReceiver(paymentInfo, feeAmount > 0, feeReceiver);
    }
}
