// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title Code the x402 facilitator's own key delegates to with EIP-7702.
/// @notice Payers sign EIP-2612 permits naming the facilitator's address as spender. With this code
/// behind that address, the facilitator runs permit and transferFrom as itself in one transaction,
/// and many payments share that transaction, each in its own group that succeeds or fails alone.
/// @dev Stateless and without immutables: under EIP-7702 the code runs in the delegating account's
/// context, so `address(this)` is the facilitator and only the facilitator may start a batch.
contract X402BatchExecutor {
    struct Call {
        address target;
        bytes data;
    }

    /// @notice A payment group reverted; `reason` is its revert data, so the facilitator can say why.
    event GroupFailed(uint256 indexed index, bytes reason);

    error OnlySelf(address caller);

    /// @notice Runs every group; a failing group is rolled back and reported, the others stand.
    /// @return ok per group, whether all its calls succeeded
    /// @return data per group, the last call's return data, or the revert data of the failing call
    function execute(Call[][] calldata groups) external returns (bool[] memory ok, bytes[] memory data) {
        if (msg.sender != address(this)) revert OnlySelf(msg.sender);
        ok = new bool[](groups.length);
        data = new bytes[](groups.length);
        for (uint256 i; i < groups.length; ++i) {
            try this.executeGroup(groups[i]) returns (bytes memory ret) {
                ok[i] = true;
                data[i] = ret;
            } catch (bytes memory reason) {
                data[i] = reason;
                emit GroupFailed(i, reason);
            }
        }
    }

    /// @notice One group, all or nothing; external only so `execute` can roll it back on its own.
    function executeGroup(Call[] calldata calls) external returns (bytes memory ret) {
        if (msg.sender != address(this)) revert OnlySelf(msg.sender);
        for (uint256 j; j < calls.length; ++j) {
            bool success;
            (success, ret) = calls[j].target.call(calls[j].data);
            if (!success) {
                assembly ("memory-safe") {
                    revert(add(ret, 32), mload(ret))
                }
            }
        }
    }

    /// @dev The delegating account still receives gas money like any EOA.
    receive() external payable {}
}
