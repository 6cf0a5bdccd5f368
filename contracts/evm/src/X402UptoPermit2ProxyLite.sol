// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {Permit2Lite} from "./Permit2Lite.sol";

interface IERC20PermitUptoLite {
    function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s) external;
}

/// @title The x402 upto-scheme Permit2 proxy, for the embedded chains.
/// @notice Stock x402 `upto` clients sign a Permit2 transfer of at most `permitted.amount` whose
/// spender is this proxy and whose witness names the recipient, the one facilitator allowed to
/// settle, and the earliest settlement time. The facilitator settles the amount actually used,
/// never more than signed; nobody else can settle it, so the seller alone picks the amount.
/// parx installs this runtime code at the proxy's canonical address with `anvil_setCode`; the
/// entry points, witness type and errors are the reference x402UptoPermit2Proxy's.
/// @dev No immutables (the code is placed, never deployed): Permit2 is a constant address.
contract X402UptoPermit2ProxyLite {
    struct Witness {
        address to;
        address facilitator;
        uint256 validAfter;
    }

    struct EIP2612Permit {
        uint256 value;
        uint256 deadline;
        bytes32 r;
        bytes32 s;
        uint8 v;
    }

    Permit2Lite public constant PERMIT2 = Permit2Lite(0x000000000022D473030F116dDEE9F6B43aC78BA3);
    /// @dev The tail Permit2 appends to its witness stub; it must produce the type the client signs.
    string public constant WITNESS_TYPE_STRING =
        "Witness witness)TokenPermissions(address token,uint256 amount)Witness(address to,address facilitator,uint256 validAfter)";
    bytes32 public constant WITNESS_TYPEHASH = keccak256("Witness(address to,address facilitator,uint256 validAfter)");

    /// @dev Zero when idle, so placed code (no constructor) starts unlocked.
    uint256 private entered;

    event Settled();
    event SettledWithPermit();

    error AmountExceedsPermitted();
    error InvalidDestination();
    error InvalidOwner();
    error InvalidPermit2Address();
    error PaymentTooEarly();
    error Permit2612AmountMismatch();
    error ReentrancyGuardReentrantCall();
    error UnauthorizedFacilitator();

    modifier nonReentrant() {
        if (entered == 1) revert ReentrancyGuardReentrantCall();
        entered = 1;
        _;
        entered = 0;
    }

    /// @notice Moves `amount` (at most the permitted amount) from `owner` to the witness's recipient.
    function settle(
        Permit2Lite.PermitTransferFrom calldata permit,
        uint256 amount,
        address owner,
        Witness calldata witness,
        bytes calldata signature
    ) external nonReentrant {
        _settle(permit, amount, owner, witness, signature);
        emit Settled();
    }

    /// @notice As `settle`, after an EIP-2612 permit that gives Permit2 its allowance in the same call.
    /// A permit already used (front-run) is ignored: the allowance it granted is what counts.
    function settleWithPermit(
        EIP2612Permit calldata permit2612,
        Permit2Lite.PermitTransferFrom calldata permit,
        uint256 amount,
        address owner,
        Witness calldata witness,
        bytes calldata signature
    ) external nonReentrant {
        if (permit2612.value < permit.permitted.amount) revert Permit2612AmountMismatch();
        try IERC20PermitUptoLite(permit.permitted.token).permit(
            owner, address(PERMIT2), permit2612.value, permit2612.deadline, permit2612.v, permit2612.r, permit2612.s
        ) {} catch {}
        _settle(permit, amount, owner, witness, signature);
        emit SettledWithPermit();
    }

    function _settle(
        Permit2Lite.PermitTransferFrom calldata permit,
        uint256 amount,
        address owner,
        Witness calldata witness,
        bytes calldata signature
    ) private {
        if (amount > permit.permitted.amount) revert AmountExceedsPermitted();
        if (owner == address(0)) revert InvalidOwner();
        if (witness.to == address(0)) revert InvalidDestination();
        if (msg.sender != witness.facilitator) revert UnauthorizedFacilitator();
        if (block.timestamp < witness.validAfter) revert PaymentTooEarly();
        PERMIT2.permitWitnessTransferFrom(
            permit,
            Permit2Lite.SignatureTransferDetails({to: witness.to, requestedAmount: amount}),
            owner,
            keccak256(abi.encode(WITNESS_TYPEHASH, witness.to, witness.facilitator, witness.validAfter)),
            WITNESS_TYPE_STRING,
            signature
        );
    }
}
