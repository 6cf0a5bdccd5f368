// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {AuthCaptureEscrow} from "./AuthCaptureEscrow.sol";
import {AuthCaptureTokenCollector} from "./AuthCaptureTokenCollector.sol";
import {AUTH_CAPTURE_TOKEN_STORE_V1_0} from "./AuthCaptureDeployments.sol";

/// @title The v1.0 auth-capture escrow, for the embedded chains.
/// @notice `charge` and `capture` take the fee as `feeBps` within the payment's
/// `[minFeeBps, maxFeeBps]`; the escrow computes `amount * feeBps / 10000`. Placed at
/// 0xBdEA0D1bcC5966192B070Fdf62aB4EF5b4420cff, where a payment names it with `extra.authCaptureEscrow`.
contract AuthCaptureEscrowV1_0 is AuthCaptureEscrow {
    event PaymentCharged(
        bytes32 indexed paymentInfoHash,
        PaymentInfo paymentInfo,
        uint256 amount,
        address tokenCollector,
        uint16 feeBps,
        address feeReceiver
    );
    event PaymentCaptured(bytes32 indexed paymentInfoHash, uint256 amount, uint16 feeBps, address feeReceiver);

    error FeeBpsOutOfRange(uint16 feeBps, uint16 minFeeBps, uint16 maxFeeBps);

    function tokenStoreImplementation() public pure override returns (address) {
        return AUTH_CAPTURE_TOKEN_STORE_V1_0;
    }

    /// @notice Collects `amount` and pays it out at once (no hold); it stays refundable.
    function charge(
        PaymentInfo calldata paymentInfo,
        uint256 amount,
        address tokenCollector,
        bytes calldata collectorData,
        uint16 feeBps,
        address feeReceiver
    ) external nonReentrant onlySender(paymentInfo.operator) validAmount(amount) {
        _validatePayment(paymentInfo, amount);
        _validateFee(paymentInfo, feeBps, feeReceiver);
        bytes32 paymentInfoHash = _recordCharge(paymentInfo, amount);
        emit PaymentCharged(paymentInfoHash, paymentInfo, amount, tokenCollector, feeBps, feeReceiver);
        _collectTokens(paymentInfo, amount, tokenCollector, collectorData, AuthCaptureTokenCollector.CollectorType.Payment);
        _distributeTokens(paymentInfo.token, paymentInfo.receiver, amount, amount * feeBps / _MAX_FEE_BPS, feeReceiver);
    }

    /// @notice Pays `amount` of the hold to the receiver (and its fee); may run several times.
    function capture(PaymentInfo calldata paymentInfo, uint256 amount, uint16 feeBps, address feeReceiver)
        external
        nonReentrant
        onlySender(paymentInfo.operator)
        validAmount(amount)
    {
        _validateFee(paymentInfo, feeBps, feeReceiver);
        bytes32 paymentInfoHash = _recordCapture(paymentInfo, amount);
        emit PaymentCaptured(paymentInfoHash, amount, feeBps, feeReceiver);
        _distributeTokens(paymentInfo.token, paymentInfo.receiver, amount, amount * feeBps / _MAX_FEE_BPS, feeReceiver);
    }

    function _validateFee(PaymentInfo calldata paymentInfo, uint16 feeBps, address feeReceiver) private pure {
        if (feeBps < paymentInfo.minFeeBps || feeBps > paymentInfo.maxFeeBps) {
            revert FeeBpsOutOfRange(feeBps, paymentInfo.minFeeBps, paymentInfo.maxFeeBps);
        }
        _validateFeeReceiver(paymentInfo, feeBps > 0, feeReceiver);
    }
}
