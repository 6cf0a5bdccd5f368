// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {IDepositCollector} from "./IDepositCollector.sol";

interface IERC3009Receive {
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

/// @title Gasless channel deposits by ERC-3009 `receiveWithAuthorization`, for the embedded chains.
/// @notice The payer signs a `ReceiveWithAuthorization` to this collector whose nonce is
/// `keccak256(abi.encode(channelId, salt))`, so the signature funds that one channel and nothing
/// else; only x402BatchSettlement may call `collect`, and the tokens go straight on to it.
/// `data` is `abi.encode(validAfter, validBefore, salt, signature)`, as the reference collector's.
/// @dev Placed with `anvil_setCode`: the settlement contract is a constant, not an immutable.
contract ERC3009DepositCollector is IDepositCollector {
    using SafeERC20 for IERC20;

    address public constant x402BatchSettlement = 0x4020074e9dF2ce1deE5A9C1b5c3f541D02a10003;

    error OnlyX402BatchSettlement();

    function collect(address payer, address token, uint256 amount, bytes32 channelId, bytes calldata data) external {
        // Otherwise anyone holding a payer's signature could route its funds elsewhere first.
        if (msg.sender != x402BatchSettlement) revert OnlyX402BatchSettlement();
        (uint256 validAfter, uint256 validBefore, uint256 salt, bytes memory signature) =
            abi.decode(data, (uint256, uint256, uint256, bytes));
        IERC3009Receive(token).receiveWithAuthorization(
            payer, address(this), amount, validAfter, validBefore, keccak256(abi.encode(channelId, salt)), signature
        );
        IERC20(token).safeTransfer(x402BatchSettlement, amount);
    }
}
