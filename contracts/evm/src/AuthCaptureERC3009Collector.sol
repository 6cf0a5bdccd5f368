// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {AuthCaptureEscrow} from "./AuthCaptureEscrow.sol";
import {AuthCaptureTokenCollector} from "./AuthCaptureTokenCollector.sol";
import {AUTH_CAPTURE_ESCROW_V1_0, AUTH_CAPTURE_ESCROW_V1_1} from "./AuthCaptureDeployments.sol";

interface IERC3009ReceiveBytes {
    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes memory signature
    ) external;
}

/// @title Collects a payment by ERC-3009 `receiveWithAuthorization` (USDC and its kind).
/// @notice The payer signs a `ReceiveWithAuthorization` of `maxAmount` to this collector, valid
/// from 0 until `preApprovalExpiry`, whose nonce is the payment's payer-agnostic hash:
/// `collectorData` is that signature (ERC-6492 envelopes allowed). The whole `maxAmount` moves
/// (the signature names it), what exceeds `amount` goes straight back to the payer, and `amount`
/// goes on to the token store.
abstract contract AuthCaptureERC3009Collector is AuthCaptureTokenCollector {
    using SafeERC20 for IERC20;

    function collectorType() external pure override returns (CollectorType) {
        return CollectorType.Payment;
    }

    function _collectTokens(
        AuthCaptureEscrow.PaymentInfo calldata paymentInfo,
        address tokenStore,
        uint256 amount,
        bytes calldata collectorData
    ) internal override {
        IERC20 token = IERC20(paymentInfo.token);
        IERC3009ReceiveBytes(paymentInfo.token).receiveWithAuthorization(
            paymentInfo.payer,
            address(this),
            paymentInfo.maxAmount,
            0,
            paymentInfo.preApprovalExpiry,
            _payerAgnosticHash(paymentInfo),
            _unwrapERC6492(collectorData)
        );
        if (paymentInfo.maxAmount > amount) token.safeTransfer(paymentInfo.payer, paymentInfo.maxAmount - amount);
        token.safeTransfer(tokenStore, amount);
    }
}

/// @notice At 0x0E3dF9510de65469C4518D7843919c0b8C7A7757, for the v1.0 escrow.
contract AuthCaptureERC3009CollectorV1_0 is AuthCaptureERC3009Collector {
    function authCaptureEscrow() public pure override returns (address) {
        return AUTH_CAPTURE_ESCROW_V1_0;
    }
}

/// @notice At 0x8612dfdc421f80336cd14E8EF9cb1E765dB5ab88, for the v1.1 escrow.
contract AuthCaptureERC3009CollectorV1_1 is AuthCaptureERC3009Collector {
    function authCaptureEscrow() public pure override returns (address) {
        return AUTH_CAPTURE_ESCROW_V1_1;
    }
}
