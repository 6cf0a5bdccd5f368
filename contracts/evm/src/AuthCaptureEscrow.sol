// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {Clones} from "@openzeppelin/contracts/proxy/Clones.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";
import {AuthCaptureTokenCollector} from "./AuthCaptureTokenCollector.sol";
import {AuthCaptureTokenStore} from "./AuthCaptureTokenStore.sol";

/// @title The x402 `auth-capture` escrow: hold a payer's funds, then capture, void, refund or reclaim.
/// @notice What both deployments share. A payer signs one token authorization (through a token
/// collector) whose nonce commits to a `PaymentInfo`; the operator named in it then `authorize`s
/// (holds) up to `maxAmount`, captures to the receiver in one or several steps before
/// `authorizationExpiry`, voids what is left, and refunds captured funds before `refundExpiry`;
/// after `authorizationExpiry` the payer reclaims an uncaptured hold alone. Held funds sit in a
/// token store per operator, so one operator's holds never pay for another's.
/// Entry points, the `PaymentInfo` struct, its hash, events and errors are those of
/// base/commerce-payments' `AuthCaptureEscrow`, so the official x402 client's signatures collect
/// here unchanged. `charge` and `capture` differ between v1.0 (`feeBps`) and v1.1 (`feeAmount`):
/// see AuthCaptureEscrowV1_0 and AuthCaptureEscrowV1_1.
/// @dev No constructor and no immutables (the code is placed, never deployed): the token store
/// implementation is a constant of each version, the hash uses `address(this)` and
/// `block.chainid` on every call, and the reentrancy guard lives in transient storage.
abstract contract AuthCaptureEscrow is ReentrancyGuardTransient {
    /// @notice Everything a payment is; its hash is the payment's id, so none of it can change.
    struct PaymentInfo {
        /// @dev The only address that may authorize, charge, capture, void and refund.
        address operator;
        address payer;
        address receiver;
        address token;
        /// @dev The most the payer's authorization lets the escrow collect.
        uint120 maxAmount;
        /// @dev Collecting (authorize, charge) must happen before this.
        uint48 preApprovalExpiry;
        /// @dev Capturing must happen before this; from then on the payer may reclaim.
        uint48 authorizationExpiry;
        /// @dev Refunding must happen before this.
        uint48 refundExpiry;
        uint16 minFeeBps;
        uint16 maxFeeBps;
        /// @dev Zero lets the operator name the fee receiver at capture.
        address feeReceiver;
        uint256 salt;
    }

    struct PaymentState {
        /// @dev Set by the first authorize or charge, never cleared: a payment collects once.
        bool hasCollectedPayment;
        uint120 capturableAmount;
        uint120 refundableAmount;
    }

    bytes32 public constant PAYMENT_INFO_TYPEHASH = keccak256(
        "PaymentInfo(address operator,address payer,address receiver,address token,uint120 maxAmount,uint48 preApprovalExpiry,uint48 authorizationExpiry,uint48 refundExpiry,uint16 minFeeBps,uint16 maxFeeBps,address feeReceiver,uint256 salt)"
    );

    uint16 internal constant _MAX_FEE_BPS = 10_000;

    mapping(bytes32 paymentInfoHash => PaymentState state) public paymentState;

    event PaymentAuthorized(
        bytes32 indexed paymentInfoHash, PaymentInfo paymentInfo, uint256 amount, address tokenCollector
    );
    event PaymentVoided(bytes32 indexed paymentInfoHash, uint256 amount);
    event PaymentReclaimed(bytes32 indexed paymentInfoHash, uint256 amount);
    event PaymentRefunded(bytes32 indexed paymentInfoHash, uint256 amount, address tokenCollector);
    event TokenStoreCreated(address indexed operator, address tokenStore);

    error InvalidSender(address sender, address expected);
    error ZeroAmount();
    error AmountOverflow(uint256 amount, uint256 limit);
    error ExceedsMaxAmount(uint256 amount, uint256 maxAmount);
    error AfterPreApprovalExpiry(uint48 timestamp, uint48 expiry);
    error InvalidExpiries(uint48 preApproval, uint48 authorization, uint48 refund);
    error FeeBpsOverflow(uint16 feeBps);
    error InvalidFeeBpsRange(uint16 minFeeBps, uint16 maxFeeBps);
    error ZeroFeeReceiver();
    error InvalidFeeReceiver(address attempted, address expected);
    error InvalidCollectorForOperation();
    error TokenCollectionFailed();
    error PaymentAlreadyCollected(bytes32 paymentInfoHash);
    error AfterAuthorizationExpiry(uint48 timestamp, uint48 expiry);
    error InsufficientAuthorization(bytes32 paymentInfoHash, uint256 authorizedAmount, uint256 requestedAmount);
    error ZeroAuthorization(bytes32 paymentInfoHash);
    error BeforeAuthorizationExpiry(uint48 timestamp, uint48 expiry);
    error AfterRefundExpiry(uint48 timestamp, uint48 expiry);
    error RefundExceedsCapture(uint256 refund, uint256 captured);

    modifier onlySender(address sender) {
        if (msg.sender != sender) revert InvalidSender(msg.sender, sender);
        _;
    }

    /// @dev Amounts are stored as uint120, so a larger one must never be truncated into state.
    modifier validAmount(uint256 amount) {
        if (amount == 0) revert ZeroAmount();
        if (amount > type(uint120).max) revert AmountOverflow(amount, type(uint120).max);
        _;
    }

    /// @notice The code every operator's token store is a clone of.
    function tokenStoreImplementation() public pure virtual returns (address);

    /// @notice Holds `amount` (at most `maxAmount`) of the payer's funds in the operator's token store.
    function authorize(PaymentInfo calldata paymentInfo, uint256 amount, address tokenCollector, bytes calldata collectorData)
        external
        nonReentrant
        onlySender(paymentInfo.operator)
        validAmount(amount)
    {
        _validatePayment(paymentInfo, amount);
        bytes32 paymentInfoHash = getHash(paymentInfo);
        if (paymentState[paymentInfoHash].hasCollectedPayment) revert PaymentAlreadyCollected(paymentInfoHash);
        // State first: the collector and the token run foreign code.
        paymentState[paymentInfoHash] =
            PaymentState({hasCollectedPayment: true, capturableAmount: uint120(amount), refundableAmount: 0});
        emit PaymentAuthorized(paymentInfoHash, paymentInfo, amount, tokenCollector);
        _collectTokens(paymentInfo, amount, tokenCollector, collectorData, AuthCaptureTokenCollector.CollectorType.Payment);
    }

    /// @notice Returns the whole uncaptured hold to the payer; the payment can never be captured again.
    function void(PaymentInfo calldata paymentInfo) external nonReentrant onlySender(paymentInfo.operator) {
        bytes32 paymentInfoHash = getHash(paymentInfo);
        uint256 held = paymentState[paymentInfoHash].capturableAmount;
        if (held == 0) revert ZeroAuthorization(paymentInfoHash);
        paymentState[paymentInfoHash].capturableAmount = 0;
        emit PaymentVoided(paymentInfoHash, held);
        _sendTokens(paymentInfo.operator, paymentInfo.token, paymentInfo.payer, held);
    }

    /// @notice The payer's own way back: from `authorizationExpiry` on, the uncaptured hold returns
    /// to it without the operator, so a vanished operator can never keep funds.
    function reclaim(PaymentInfo calldata paymentInfo) external nonReentrant onlySender(paymentInfo.payer) {
        if (block.timestamp < paymentInfo.authorizationExpiry) {
            revert BeforeAuthorizationExpiry(uint48(block.timestamp), paymentInfo.authorizationExpiry);
        }
        bytes32 paymentInfoHash = getHash(paymentInfo);
        uint256 held = paymentState[paymentInfoHash].capturableAmount;
        if (held == 0) revert ZeroAuthorization(paymentInfoHash);
        paymentState[paymentInfoHash].capturableAmount = 0;
        emit PaymentReclaimed(paymentInfoHash, held);
        _sendTokens(paymentInfo.operator, paymentInfo.token, paymentInfo.payer, held);
    }

    /// @notice Pays captured funds back to the payer, with liquidity a refund collector brings
    /// (captured funds already left the escrow).
    function refund(PaymentInfo calldata paymentInfo, uint256 amount, address tokenCollector, bytes calldata collectorData)
        external
        nonReentrant
        onlySender(paymentInfo.operator)
        validAmount(amount)
    {
        if (block.timestamp >= paymentInfo.refundExpiry) {
            revert AfterRefundExpiry(uint48(block.timestamp), paymentInfo.refundExpiry);
        }
        bytes32 paymentInfoHash = getHash(paymentInfo);
        uint120 captured = paymentState[paymentInfoHash].refundableAmount;
        if (captured < amount) revert RefundExceedsCapture(amount, captured);
        paymentState[paymentInfoHash].refundableAmount = captured - uint120(amount);
        emit PaymentRefunded(paymentInfoHash, amount, tokenCollector);
        _collectTokens(paymentInfo, amount, tokenCollector, collectorData, AuthCaptureTokenCollector.CollectorType.Refund);
        _sendTokens(paymentInfo.operator, paymentInfo.token, paymentInfo.payer, amount);
    }

    /// @notice The payment's id: the struct's hash bound to this chain and this escrow.
    function getHash(PaymentInfo calldata paymentInfo) public view returns (bytes32) {
        bytes32 structHash = keccak256(abi.encode(PAYMENT_INFO_TYPEHASH, paymentInfo));
        return keccak256(abi.encode(block.chainid, address(this), structHash));
    }

    /// @notice Where an operator's held funds sit (a clone created at its first payout).
    function getTokenStore(address operator) public view returns (address) {
        return Clones.predictDeterministicAddress(tokenStoreImplementation(), bytes32(bytes20(operator)), address(this));
    }

    /// @dev Records a charge (collected and captured at once) after the payment's own checks.
    function _recordCharge(PaymentInfo calldata paymentInfo, uint256 amount) internal returns (bytes32 paymentInfoHash) {
        paymentInfoHash = getHash(paymentInfo);
        if (paymentState[paymentInfoHash].hasCollectedPayment) revert PaymentAlreadyCollected(paymentInfoHash);
        paymentState[paymentInfoHash] =
            PaymentState({hasCollectedPayment: true, capturableAmount: 0, refundableAmount: uint120(amount)});
    }

    /// @dev Moves `amount` from held to captured, before the capture deadline.
    function _recordCapture(PaymentInfo calldata paymentInfo, uint256 amount) internal returns (bytes32 paymentInfoHash) {
        if (block.timestamp >= paymentInfo.authorizationExpiry) {
            revert AfterAuthorizationExpiry(uint48(block.timestamp), paymentInfo.authorizationExpiry);
        }
        paymentInfoHash = getHash(paymentInfo);
        PaymentState memory state = paymentState[paymentInfoHash];
        if (state.capturableAmount < amount) {
            revert InsufficientAuthorization(paymentInfoHash, state.capturableAmount, amount);
        }
        state.capturableAmount -= uint120(amount);
        state.refundableAmount += uint120(amount);
        paymentState[paymentInfoHash] = state;
    }

    /// @dev The collector is trusted with nothing: only the token store's balance change counts.
    function _collectTokens(
        PaymentInfo calldata paymentInfo,
        uint256 amount,
        address tokenCollector,
        bytes calldata collectorData,
        AuthCaptureTokenCollector.CollectorType collectorType
    ) internal {
        if (AuthCaptureTokenCollector(tokenCollector).collectorType() != collectorType) revert InvalidCollectorForOperation();
        address tokenStore = getTokenStore(paymentInfo.operator);
        uint256 before = IERC20(paymentInfo.token).balanceOf(tokenStore);
        AuthCaptureTokenCollector(tokenCollector).collectTokens(paymentInfo, tokenStore, amount, collectorData);
        if (IERC20(paymentInfo.token).balanceOf(tokenStore) != before + amount) revert TokenCollectionFailed();
    }

    /// @dev Pays out of the operator's token store, creating it on its first use.
    function _sendTokens(address operator, address token, address recipient, uint256 amount) internal {
        address tokenStore = getTokenStore(operator);
        if (tokenStore.code.length == 0) {
            Clones.cloneDeterministic(tokenStoreImplementation(), bytes32(bytes20(operator)));
            emit TokenStoreCreated(operator, tokenStore);
        }
        AuthCaptureTokenStore(tokenStore).sendTokens(token, recipient, amount);
    }

    /// @dev The fee (already checked against the payment's bounds) to its receiver, the rest to the receiver.
    function _distributeTokens(address token, address receiver, uint256 amount, uint256 feeAmount, address feeReceiver)
        internal
    {
        if (feeAmount > 0) _sendTokens(msg.sender, token, feeReceiver, feeAmount);
        if (amount > feeAmount) _sendTokens(msg.sender, token, receiver, amount - feeAmount);
    }

    /// @dev What a collect (authorize, charge) requires of the payment itself.
    function _validatePayment(PaymentInfo calldata paymentInfo, uint256 amount) internal view {
        if (amount > paymentInfo.maxAmount) revert ExceedsMaxAmount(amount, paymentInfo.maxAmount);
        uint48 preApproval = paymentInfo.preApprovalExpiry;
        uint48 authorization = paymentInfo.authorizationExpiry;
        uint48 refundBy = paymentInfo.refundExpiry;
        if (block.timestamp >= preApproval) revert AfterPreApprovalExpiry(uint48(block.timestamp), preApproval);
        // A hold must outlive the authorization to collect it, and refunds must outlive captures.
        if (preApproval > authorization || authorization > refundBy) {
            revert InvalidExpiries(preApproval, authorization, refundBy);
        }
        if (paymentInfo.maxFeeBps > _MAX_FEE_BPS) revert FeeBpsOverflow(paymentInfo.maxFeeBps);
        if (paymentInfo.minFeeBps > paymentInfo.maxFeeBps) {
            revert InvalidFeeBpsRange(paymentInfo.minFeeBps, paymentInfo.maxFeeBps);
        }
    }

    /// @dev A fee goes to a named receiver, and to the payment's own when it fixes one.
    function _validateFeeReceiver(PaymentInfo calldata paymentInfo, bool hasFee, address feeReceiver) internal pure {
        if (feeReceiver == address(0) && hasFee) revert ZeroFeeReceiver();
        if (paymentInfo.feeReceiver != address(0) && paymentInfo.feeReceiver != feeReceiver) {
            revert InvalidFeeReceiver(feeReceiver, paymentInfo.feeReceiver);
        }
    }
}
