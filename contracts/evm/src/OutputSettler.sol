// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";

/// @title Destination-side delivery of cross-chain orders that start on Solana (the sol-origin rail).
/// @notice A solver pays the order's output from its own balance to the recipient; the fill record
/// it leaves is what the attestors read before signing the delivery that lets the solver claim the
/// locked input on Solana. Shaped after OIF's OutputSettler.
/// @dev This contract cannot read the Solana order, so it cannot tell a right fill from a wrong one.
/// Records are therefore keyed by the order id AND the output (token, amount, recipient), as OIF
/// keys them by order id and output hash: a fill of the same order and output happens once, while a
/// bogus "fill" of someone else's order id with a worthless token cannot block the real one. The
/// attestors look up the record under the output the order asks for; any other record is ignored.
contract OutputSettler {
    using SafeERC20 for IERC20;

    struct FillRecord {
        address filler;
        uint64 timestamp;
        /// The party credited on the origin chain (a Solana public key), signed into the delivery.
        bytes32 claimant;
    }

    mapping(bytes32 fillKey => FillRecord) private _fills;

    event Filled(
        bytes32 indexed orderId,
        address indexed filler,
        bytes32 indexed claimant,
        address token,
        uint256 amount,
        address recipient
    );

    error AlreadyFilled(bytes32 orderId, address filler);
    error FillDeadlinePassed(uint64 fillDeadline);
    error ZeroAmount();
    error InvalidClaimant();

    /// @notice Which record a fill of `orderId` with this output writes.
    function fillKey(bytes32 orderId, address token, uint256 amount, address recipient) public pure returns (bytes32) {
        return keccak256(abi.encode(orderId, token, amount, recipient));
    }

    /// @notice Moves `amount` of `token` from the caller to `recipient` as the delivery of `orderId`,
    /// credited to `claimant`. `fillDeadline` is the order's: it protects the solver from a fill that
    /// lands too late to be attested (the attestors also compare the recorded timestamp with it).
    function fill(
        bytes32 orderId,
        address token,
        uint256 amount,
        address recipient,
        bytes32 claimant,
        uint64 fillDeadline
    ) external {
        if (block.timestamp > fillDeadline) revert FillDeadlinePassed(fillDeadline);
        if (amount == 0) revert ZeroAmount();
        if (claimant == bytes32(0)) revert InvalidClaimant();
        bytes32 key = fillKey(orderId, token, amount, recipient);
        FillRecord storage record = _fills[key];
        if (record.filler != address(0)) revert AlreadyFilled(orderId, record.filler);
        // Recorded before the transfer, so a token hook re-entering with the same fill fails.
        record.filler = msg.sender;
        record.timestamp = uint64(block.timestamp);
        record.claimant = claimant;
        IERC20(token).safeTransferFrom(msg.sender, recipient, amount);
        emit Filled(orderId, msg.sender, claimant, token, amount, recipient);
    }

    /// @notice The record of a fill of `orderId` with exactly this output; `filler == address(0)`
    /// when there is none.
    function fillOf(bytes32 orderId, address token, uint256 amount, address recipient)
        external
        view
        returns (FillRecord memory)
    {
        return _fills[fillKey(orderId, token, amount, recipient)];
    }
}
