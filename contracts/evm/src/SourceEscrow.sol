// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";
import {IDeliveryVerifier} from "./IDeliveryVerifier.sol";

/// @title Source-chain escrow of cross-chain orders that start on this chain (the evm-origin rail).
/// @notice The user locks the input here; the solver delivers on the destination chain; once the
/// attestor quorum has signed the delivery, the input goes to that solver. An order nobody claimed
/// by `expires` goes back to its user, at anyone's request. Shaped after OIF's InputSettlerEscrow,
/// with one difference: claims end at `expires` and refunds start after it, so a late claim can
/// never follow a refund.
/// @dev Only the status of each order is stored; claim and refund take the order again and
/// recompute its id, which is cheaper than storing ten fields and keeps one source of truth.
contract SourceEscrow is EIP712 {
    using SafeERC20 for IERC20;

    /// @notice An EvmOrder of contracts/xchain/statement.ts; its EIP-712 digest is the order id.
    struct Order {
        address user;
        address inputToken;
        uint256 inputAmount;
        bytes32 destChain;
        bytes32 outputToken;
        uint256 outputAmount;
        bytes32 recipient;
        uint32 fillDeadline;
        uint32 expires;
        uint256 nonce;
    }

    enum Status {
        None,
        Deposited,
        Claimed,
        Refunded
    }

    bytes32 public constant ORDER_TYPEHASH = keccak256(
        "Order(address user,address inputToken,uint256 inputAmount,bytes32 destChain,bytes32 outputToken,uint256 outputAmount,bytes32 recipient,uint32 fillDeadline,uint32 expires,uint256 nonce)"
    );

    /// @notice Fixed at deployment: the attestor set rotates inside the verifier, never by swapping it.
    IDeliveryVerifier public immutable verifier;

    /// @notice None until opened; an order id never returns to None, so it opens at most once.
    mapping(bytes32 orderId => Status) public orderStatus;

    event Opened(bytes32 indexed orderId, address indexed user, Order order);
    event Claimed(bytes32 indexed orderId, address indexed solver, address inputToken, uint256 amount);
    event Refunded(bytes32 indexed orderId, address indexed user, address inputToken, uint256 amount);

    error NotUser(address caller, address user);
    error ZeroAmount();
    error FillDeadlineAfterExpiry(uint32 fillDeadline, uint32 expires);
    error FillDeadlinePassed(uint32 fillDeadline);
    error OrderAlreadyOpened(bytes32 orderId);
    error BadSignature(address user);
    error InsufficientAllowance(uint256 allowance, uint256 needed);
    error NotDeposited(bytes32 orderId, Status status);
    error OrderExpired(bytes32 orderId, uint32 expires);
    error NotExpired(bytes32 orderId, uint32 expires);
    error InvalidSolver(bytes32 solver);

    constructor(IDeliveryVerifier verifier_) EIP712("ParxSourceEscrow", "1") {
        verifier = verifier_;
    }

    /// @notice The order id: the EIP-712 digest of `order` under this escrow's domain, which is also
    /// what the user signs for `openFor` (evmOrderId in statement.ts).
    function orderId(Order calldata order) public view returns (bytes32) {
        return _hashTypedDataV4(keccak256(abi.encode(ORDER_TYPEHASH, order)));
    }

    /// @notice Locks the input from the caller, who must be the order's user (allowance set beforehand).
    function open(Order calldata order) external returns (bytes32 id) {
        if (msg.sender != order.user) revert NotUser(msg.sender, order.user);
        id = _accept(order);
        IERC20(order.inputToken).safeTransferFrom(order.user, address(this), order.inputAmount);
        emit Opened(id, order.user, order);
    }

    /// @notice Gasless open, relayed by anyone: the user's EIP-712 signature of the order (EOA or
    /// ERC-1271 wallet) plus an EIP-2612 permit of the input for this escrow. The signature expires
    /// with the order's fillDeadline and, the id being opened once, cannot be replayed.
    function openFor(
        Order calldata order,
        bytes calldata userSignature,
        uint256 permitDeadline,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external returns (bytes32 id) {
        id = _accept(order);
        if (!SignatureChecker.isValidSignatureNowCalldata(order.user, id, userSignature)) {
            revert BadSignature(order.user);
        }
        _permitOrAllowance(order, permitDeadline, v, r, s);
        IERC20(order.inputToken).safeTransferFrom(order.user, address(this), order.inputAmount);
        emit Opened(id, order.user, order);
    }

    /// @notice Pays the locked input to `solver` once the verifier accepts `signatures` as an attested
    /// delivery of exactly this order's output to its recipient, credited to that solver. Anyone may
    /// submit it: the money can only go to the solver named in the attested statement.
    /// @param solver The claiming solver as bytes32 (a left-padded address), as the attestors signed it.
    function claim(Order calldata order, bytes32 solver, bytes[] calldata signatures) external {
        bytes32 id = orderId(order);
        Status status = orderStatus[id];
        if (status != Status.Deposited) revert NotDeposited(id, status);
        if (block.timestamp > order.expires) revert OrderExpired(id, order.expires);
        if (solver == bytes32(0) || uint256(solver) >> 160 != 0) revert InvalidSolver(solver);
        verifier.verifyDelivery(
            IDeliveryVerifier.Delivery({
                orderId: id,
                destChain: order.destChain,
                recipient: order.recipient,
                outputToken: order.outputToken,
                amount: order.outputAmount,
                solver: solver
            }),
            signatures
        );
        orderStatus[id] = Status.Claimed;
        address payee = address(uint160(uint256(solver)));
        IERC20(order.inputToken).safeTransfer(payee, order.inputAmount);
        emit Claimed(id, payee, order.inputToken, order.inputAmount);
    }

    /// @notice Returns the input of an order still locked after `expires` to its user; anyone may
    /// call it (the solver worker sweeps), and the money has nowhere else to go.
    function refund(Order calldata order) external {
        bytes32 id = orderId(order);
        Status status = orderStatus[id];
        if (status != Status.Deposited) revert NotDeposited(id, status);
        if (block.timestamp <= order.expires) revert NotExpired(id, order.expires);
        orderStatus[id] = Status.Refunded;
        IERC20(order.inputToken).safeTransfer(order.user, order.inputAmount);
        emit Refunded(id, order.user, order.inputToken, order.inputAmount);
    }

    /// @dev The checks both opens share, then the status write; it precedes every token call, so a
    /// token hook re-entering with the same order meets OrderAlreadyOpened.
    function _accept(Order calldata order) private returns (bytes32 id) {
        if (order.inputAmount == 0) revert ZeroAmount();
        if (order.fillDeadline > order.expires) revert FillDeadlineAfterExpiry(order.fillDeadline, order.expires);
        if (order.fillDeadline <= block.timestamp) revert FillDeadlinePassed(order.fillDeadline);
        id = orderId(order);
        if (orderStatus[id] != Status.None) revert OrderAlreadyOpened(id);
        orderStatus[id] = Status.Deposited;
    }

    /// @dev Anyone who saw the permit in the mempool can submit it first and make ours revert; the
    /// allowance it set is just as good, so only a missing allowance fails the open.
    function _permitOrAllowance(Order calldata order, uint256 permitDeadline, uint8 v, bytes32 r, bytes32 s) private {
        try IERC20Permit(order.inputToken).permit(order.user, address(this), order.inputAmount, permitDeadline, v, r, s) {}
        catch {
            uint256 allowance = IERC20(order.inputToken).allowance(order.user, address(this));
            if (allowance < order.inputAmount) revert InsufficientAllowance(allowance, order.inputAmount);
        }
    }
}
