// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {AuthCaptureEscrow} from "./AuthCaptureEscrow.sol";
import {AuthCaptureTokenCollector} from "./AuthCaptureTokenCollector.sol";
import {AUTH_CAPTURE_ESCROW_V1_0, AUTH_CAPTURE_ESCROW_V1_1, AUTH_CAPTURE_PERMIT2} from "./AuthCaptureDeployments.sol";
import {Permit2Lite} from "./Permit2Lite.sol";

/// @title Collects a payment of any ERC-20 through Permit2's signature transfer.
/// @notice The payer (who approved Permit2 once) signs a `PermitTransferFrom` of `maxAmount` to
/// this collector as spender, nonce = the payment's payer-agnostic hash as a number, deadline =
/// `preApprovalExpiry`; no witness is needed since the nonce binds the payment. `collectorData`
/// is that signature (ERC-6492 envelopes allowed). Exactly `amount` moves, straight to the token store.
abstract contract AuthCapturePermit2Collector is AuthCaptureTokenCollector {
    function collectorType() external pure override returns (CollectorType) {
        return CollectorType.Payment;
    }

    function permit2() external pure returns (address) {
        return AUTH_CAPTURE_PERMIT2;
    }

    function _collectTokens(
        AuthCaptureEscrow.PaymentInfo calldata paymentInfo,
        address tokenStore,
        uint256 amount,
        bytes calldata collectorData
    ) internal override {
        Permit2Lite(AUTH_CAPTURE_PERMIT2).permitTransferFrom(
            Permit2Lite.PermitTransferFrom(
                Permit2Lite.TokenPermissions(paymentInfo.token, paymentInfo.maxAmount),
                uint256(_payerAgnosticHash(paymentInfo)),
                paymentInfo.preApprovalExpiry
            ),
            Permit2Lite.SignatureTransferDetails(tokenStore, amount),
            paymentInfo.payer,
            _unwrapERC6492(collectorData)
        );
    }
}

/// @notice At 0x992476B9Ee81d52a5BdA0622C333938D0Af0aB26, for the v1.0 escrow.
contract AuthCapturePermit2CollectorV1_0 is AuthCapturePermit2Collector {
    function authCaptureEscrow() public pure override returns (address) {
        return AUTH_CAPTURE_ESCROW_V1_0;
    }
}

/// @notice At 0xD69831Aed5bfe262067ec4c751f4F830EcdD446e, for the v1.1 escrow.
contract AuthCapturePermit2CollectorV1_1 is AuthCapturePermit2Collector {
    function authCaptureEscrow() public pure override returns (address) {
        return AUTH_CAPTURE_ESCROW_V1_1;
    }
}
