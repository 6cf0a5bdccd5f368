// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {AuthCaptureEscrow} from "./AuthCaptureEscrow.sol";
import {AuthCaptureTokenCollector} from "./AuthCaptureTokenCollector.sol";
import {AUTH_CAPTURE_ESCROW_V1_0, AUTH_CAPTURE_ESCROW_V1_1} from "./AuthCaptureDeployments.sol";

/// @title Brings refund liquidity from the payment's operator.
/// @notice Captured funds have left the escrow, so a refund is paid with new money: this collector
/// pulls `amount` from `paymentInfo.operator`, which must have approved it for the token. Only the
/// operator can call `refund`, so nobody else's allowance is ever spent.
abstract contract AuthCaptureOperatorRefundCollector is AuthCaptureTokenCollector {
    using SafeERC20 for IERC20;

    function collectorType() external pure override returns (CollectorType) {
        return CollectorType.Refund;
    }

    function _collectTokens(
        AuthCaptureEscrow.PaymentInfo calldata paymentInfo,
        address tokenStore,
        uint256 amount,
        bytes calldata
    ) internal override {
        IERC20(paymentInfo.token).safeTransferFrom(paymentInfo.operator, tokenStore, amount);
    }
}

/// @notice At 0x934907bffd0901b6A21e398B9C53A4A38F02fa5d, for the v1.0 escrow.
contract AuthCaptureOperatorRefundCollectorV1_0 is AuthCaptureOperatorRefundCollector {
    function authCaptureEscrow() public pure override returns (address) {
        return AUTH_CAPTURE_ESCROW_V1_0;
    }
}

/// @notice At 0x7a03443724d14798c4AB4622F1DAAcA761Fea486, for the v1.1 escrow.
contract AuthCaptureOperatorRefundCollectorV1_1 is AuthCaptureOperatorRefundCollector {
    function authCaptureEscrow() public pure override returns (address) {
        return AUTH_CAPTURE_ESCROW_V1_1;
    }
}
