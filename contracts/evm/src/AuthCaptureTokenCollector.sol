// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {AuthCaptureEscrow} from "./AuthCaptureEscrow.sol";
import {AUTH_CAPTURE_MULTICALL3} from "./AuthCaptureDeployments.sol";
import {Multicall3} from "./Multicall3.sol";

/// @title How the auth-capture escrow pulls funds into an operator's token store.
/// @notice A collector turns one kind of authorization (`collectorData`) into tokens arriving at
/// the token store; only its escrow may call it, and the escrow checks the store's balance grew by
/// exactly `amount`, so a collector can never credit a payment with money it did not bring.
/// A payment collector's authorization commits to the payment through its nonce, the escrow's
/// hash of the `PaymentInfo` with the payer zeroed (the payer signs before it is known to be
/// the one paying, and the hash names chain and escrow, so it crosses neither).
abstract contract AuthCaptureTokenCollector {
    enum CollectorType {
        Payment,
        Refund
    }

    /// @dev ERC-6492 envelopes end with this word: `abi.encode(factory, factoryCalldata, signature) ++ magic`.
    bytes32 internal constant _ERC6492_MAGIC_VALUE = 0x6492649264926492649264926492649264926492649264926492649264926492;

    error OnlyAuthCaptureEscrow();

    function authCaptureEscrow() public pure virtual returns (address);

    function collectorType() external pure virtual returns (CollectorType);

    function collectTokens(
        AuthCaptureEscrow.PaymentInfo calldata paymentInfo,
        address tokenStore,
        uint256 amount,
        bytes calldata collectorData
    ) external {
        // Otherwise anyone holding a payer's authorization could spend it on a payment of their own.
        if (msg.sender != authCaptureEscrow()) revert OnlyAuthCaptureEscrow();
        _collectTokens(paymentInfo, tokenStore, amount, collectorData);
    }

    function _collectTokens(
        AuthCaptureEscrow.PaymentInfo calldata paymentInfo,
        address tokenStore,
        uint256 amount,
        bytes calldata collectorData
    ) internal virtual;

    /// @notice The neutral sender ERC-6492 wallet deployments go through (see `_unwrapERC6492`).
    function multicall3() external pure returns (address) {
        return AUTH_CAPTURE_MULTICALL3;
    }

    function _payerAgnosticHash(AuthCaptureEscrow.PaymentInfo calldata paymentInfo) internal view returns (bytes32) {
        AuthCaptureEscrow.PaymentInfo memory agnostic = paymentInfo;
        agnostic.payer = address(0);
        return AuthCaptureEscrow(authCaptureEscrow()).getHash(agnostic);
    }

    /// @notice The signature to check, after deploying a counterfactual smart wallet when the
    /// payer sent an ERC-6492 envelope. The deployment call goes through Multicall3, a neutral
    /// sender, so it can never act as this collector; its failure is ignored (the wallet may exist
    /// already, and the token's own signature check decides).
    function _unwrapERC6492(bytes calldata signature) internal returns (bytes memory) {
        uint256 n = signature.length;
        if (n < 32 || bytes32(signature[n - 32:]) != _ERC6492_MAGIC_VALUE) return signature;
        (address target, bytes memory prepareData, bytes memory inner) =
            abi.decode(signature[:n - 32], (address, bytes, bytes));
        Multicall3.Call[] memory calls = new Multicall3.Call[](1);
        calls[0] = Multicall3.Call(target, prepareData);
        Multicall3(AUTH_CAPTURE_MULTICALL3).tryAggregate(false, calls);
        return inner;
    }
}
