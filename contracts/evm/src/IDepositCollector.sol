// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title How x402BatchSettlement pulls a deposit.
/// @notice A collector moves `amount` of `token` from `payer` into the settlement contract, using
/// whatever authorization `data` carries; the settlement contract checks its own balance grew by
/// exactly `amount`, so a collector can never credit a channel with money it did not bring.
interface IDepositCollector {
    function collect(address payer, address token, uint256 amount, bytes32 channelId, bytes calldata data) external;
}
