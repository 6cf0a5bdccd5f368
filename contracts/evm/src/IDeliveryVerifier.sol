// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title What SourceEscrow asks before paying a solver: was this delivery attested?
/// @notice The statement mirrors `Delivery` in contracts/xchain/statement.ts; every party and token is
/// bytes32 because the delivery happened on another chain (a Solana key, or a left-padded address).
interface IDeliveryVerifier {
    struct Delivery {
        bytes32 orderId;
        bytes32 destChain;
        bytes32 recipient;
        bytes32 outputToken;
        uint256 amount;
        bytes32 solver;
    }

    /// @notice Returns normally only when `signatures` attest `delivery`; otherwise reverts with the
    /// implementation's error naming what was wrong, which the caller lets bubble up.
    function verifyDelivery(Delivery calldata delivery, bytes[] calldata signatures) external view;
}
