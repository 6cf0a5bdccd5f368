// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";
import {IUniswapV2PairMinimal} from "./IUniswapV2PairMinimal.sol";

/// @title Gasless RFQ swap router.
/// @notice The user signs an RfqOrder and an EIP-2612 permit; only the solver relays, paying the gas.
/// The solver either pays the output from its own inventory (`swap`) or routes the input through a
/// Uniswap V2 pair (`swapViaPool`) when its inventory of the output is short.
contract RfqSwap is EIP712 {
    using SafeERC20 for IERC20;

    struct RfqOrder {
        address user;
        address inputToken;
        uint256 inputAmount;
        address outputToken;
        uint256 minOutputAmount;
        address solver;
        uint256 deadline;
        uint256 nonce;
    }

    bytes32 public constant RFQ_ORDER_TYPEHASH = keccak256(
        "RfqOrder(address user,address inputToken,uint256 inputAmount,address outputToken,uint256 minOutputAmount,address solver,uint256 deadline,uint256 nonce)"
    );

    address public immutable solver;

    /// @notice The nonce the user's next order must carry; sequential, so a signed order runs at most once.
    mapping(address user => uint256) public nonces;

    event Swapped(
        bytes32 orderHash,
        address indexed user,
        address indexed inputToken,
        uint256 inputAmount,
        address indexed outputToken,
        uint256 outputAmount,
        uint256 nonce
    );

    error NotSolver(address caller);
    error SolverMismatch(address orderSolver);
    error Expired(uint256 deadline);
    error SameToken(address token);
    error BadNonce(uint256 expected, uint256 got);
    error BadSignature(address user);
    error InsufficientAllowance(uint256 allowance, uint256 needed);
    error PairMismatch(address pair);
    error InsufficientOutput(uint256 output, uint256 minOutput);

    constructor(address solver_) EIP712("ParxRfqSwap", "1") {
        solver = solver_;
    }

    /// @notice The EIP-712 digest the user signs for `order` on this router and chain.
    function hashOrder(RfqOrder calldata order) public view returns (bytes32) {
        return _hashTypedDataV4(keccak256(abi.encode(RFQ_ORDER_TYPEHASH, order)));
    }

    /// @notice Pays `minOutputAmount` of the output from the solver's inventory for the user's input.
    function swap(RfqOrder calldata order, bytes calldata orderSig, uint8 v, bytes32 r, bytes32 s) external {
        bytes32 orderHash = _accept(order, orderSig, v, r, s);
        IERC20(order.inputToken).safeTransferFrom(order.user, solver, order.inputAmount);
        IERC20(order.outputToken).safeTransferFrom(solver, order.user, order.minOutputAmount);
        _emitSwapped(orderHash, order, order.minOutputAmount);
    }

    /// @notice Sells the user's input into `pair` and sends the pool's output straight to the user,
    /// for redemptions the solver's inventory cannot cover; reverts below `minOutputAmount`.
    function swapViaPool(
        RfqOrder calldata order,
        bytes calldata orderSig,
        uint8 v,
        bytes32 r,
        bytes32 s,
        address pair
    ) external {
        bytes32 orderHash = _accept(order, orderSig, v, r, s);
        _emitSwapped(orderHash, order, _sellIntoPair(order, pair));
    }

    /// @dev Every check, the permit and the nonce bump; state changes here precede all token transfers,
    /// so a reentrant call through a token hook meets the next nonce and fails.
    function _accept(RfqOrder calldata order, bytes calldata orderSig, uint8 v, bytes32 r, bytes32 s)
        private
        returns (bytes32 orderHash)
    {
        if (msg.sender != solver) revert NotSolver(msg.sender);
        if (order.solver != solver) revert SolverMismatch(order.solver);
        if (block.timestamp > order.deadline) revert Expired(order.deadline);
        if (order.inputToken == order.outputToken) revert SameToken(order.inputToken);
        uint256 expected = nonces[order.user];
        if (order.nonce != expected) revert BadNonce(expected, order.nonce);
        orderHash = hashOrder(order);
        if (!SignatureChecker.isValidSignatureNowCalldata(order.user, orderHash, orderSig)) {
            revert BadSignature(order.user);
        }
        nonces[order.user] = expected + 1;
        _permitOrAllowance(order, v, r, s);
    }

    /// @dev Anyone who saw the permit in the mempool can submit it first and make ours revert; the
    /// allowance it set is just as good, so only a missing allowance fails the swap.
    function _permitOrAllowance(RfqOrder calldata order, uint8 v, bytes32 r, bytes32 s) private {
        try IERC20Permit(order.inputToken).permit(order.user, address(this), order.inputAmount, order.deadline, v, r, s) {}
        catch {
            uint256 allowance = IERC20(order.inputToken).allowance(order.user, address(this));
            if (allowance < order.inputAmount) revert InsufficientAllowance(allowance, order.inputAmount);
        }
    }

    /// @dev The pool quote is checked before anything moves; the balance check after the swap makes
    /// `minOutputAmount` hold even if `pair` only pretends to be a V2 pair.
    function _sellIntoPair(RfqOrder calldata order, address pair) private returns (uint256 delivered) {
        (bool inputIsToken0, uint256 reserveIn, uint256 reserveOut) = _pairReserves(order, pair);
        uint256 amountInWithFee = order.inputAmount * 997;
        uint256 quoted = (amountInWithFee * reserveOut) / (reserveIn * 1000 + amountInWithFee);
        if (quoted < order.minOutputAmount) revert InsufficientOutput(quoted, order.minOutputAmount);

        IERC20 output = IERC20(order.outputToken);
        uint256 before = output.balanceOf(order.user);
        IERC20(order.inputToken).safeTransferFrom(order.user, pair, order.inputAmount);
        (uint256 out0, uint256 out1) = inputIsToken0 ? (uint256(0), quoted) : (quoted, uint256(0));
        IUniswapV2PairMinimal(pair).swap(out0, out1, order.user, "");
        delivered = output.balanceOf(order.user) - before;
        if (delivered < order.minOutputAmount) revert InsufficientOutput(delivered, order.minOutputAmount);
    }

    function _pairReserves(RfqOrder calldata order, address pair)
        private
        view
        returns (bool inputIsToken0, uint256 reserveIn, uint256 reserveOut)
    {
        IUniswapV2PairMinimal p = IUniswapV2PairMinimal(pair);
        address token0 = p.token0();
        address token1 = p.token1();
        inputIsToken0 = token0 == order.inputToken;
        bool matches = inputIsToken0
            ? token1 == order.outputToken
            : (token1 == order.inputToken && token0 == order.outputToken);
        if (!matches) revert PairMismatch(pair);
        (uint112 reserve0, uint112 reserve1,) = p.getReserves();
        (reserveIn, reserveOut) = inputIsToken0 ? (uint256(reserve0), uint256(reserve1)) : (reserve1, reserve0);
    }

    function _emitSwapped(bytes32 orderHash, RfqOrder calldata order, uint256 outputAmount) private {
        emit Swapped(
            orderHash,
            order.user,
            order.inputToken,
            order.inputAmount,
            order.outputToken,
            outputAmount,
            order.nonce
        );
    }
}
