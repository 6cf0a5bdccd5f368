// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {AUTH_CAPTURE_ESCROW_V1_0, AUTH_CAPTURE_ESCROW_V1_1} from "./AuthCaptureDeployments.sol";

/// @title Where one operator's held and in-flight funds sit, apart from every other operator's.
/// @notice The escrow clones this code once per operator (CREATE2, salt = the operator) and is the
/// only caller allowed to move the funds. Clones run this code by delegatecall, so the escrow's
/// address is a constant of each version's code rather than state a clone would not have.
abstract contract AuthCaptureTokenStore {
    using SafeERC20 for IERC20;

    error OnlyAuthCaptureEscrow();

    function authCaptureEscrow() public pure virtual returns (address);

    function sendTokens(address token, address recipient, uint256 amount) external returns (bool) {
        if (msg.sender != authCaptureEscrow()) revert OnlyAuthCaptureEscrow();
        IERC20(token).safeTransfer(recipient, amount);
        return true;
    }
}

/// @notice Placed where the v1.0 escrow's constructor puts its token store implementation.
contract AuthCaptureTokenStoreV1_0 is AuthCaptureTokenStore {
    function authCaptureEscrow() public pure override returns (address) {
        return AUTH_CAPTURE_ESCROW_V1_0;
    }
}

/// @notice Placed where the v1.1 escrow's constructor puts its token store implementation.
contract AuthCaptureTokenStoreV1_1 is AuthCaptureTokenStore {
    function authCaptureEscrow() public pure override returns (address) {
        return AUTH_CAPTURE_ESCROW_V1_1;
    }
}
