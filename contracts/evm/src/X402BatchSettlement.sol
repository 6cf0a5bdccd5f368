// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";
import {Multicall} from "@openzeppelin/contracts/utils/Multicall.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";
import {IDepositCollector} from "./IDepositCollector.sol";

/// @title Payment channels of the x402 `batch-settlement` scheme, for the embedded chains.
/// @notice A payer deposits once into a channel; the receiver then accepts cumulative vouchers
/// off chain and claims the latest of many channels in one transaction (accounting only), and
/// `settle` sweeps everything claimed for a receiver and token in one transfer. Unclaimed escrow
/// goes back to the payer by a cooperative refund or, without the receiver, by a timed withdrawal
/// that leaves the receiver `withdrawDelay` seconds to claim first.
/// Behaviour, entry points, EIP-712 types, events and errors are those of the scheme's EVM spec
/// and the reference x402BatchSettlement, so the official x402 EVM client, server and
/// facilitator work against it unchanged. parx places this runtime code at the canonical address
/// with `anvil_setCode`.
/// @dev No constructor and no immutables (the code is placed, never deployed): the EIP-712 domain
/// separator is computed from `address(this)` and `block.chainid` on every call, and the
/// reentrancy guard lives in transient storage, which starts at zero.
contract X402BatchSettlement is Multicall, ReentrancyGuardTransient {
    using SafeERC20 for IERC20;

    /// @notice What a channel is; its EIP-712 hash is the channel id, so none of it can change.
    struct ChannelConfig {
        address payer;
        /// @dev The EOA that signs vouchers, or zero for the payer itself (ERC-1271 wallets).
        address payerAuthorizer;
        address receiver;
        /// @dev Signs claim batches and refunds (or calls them directly); never zero.
        address receiverAuthorizer;
        address token;
        uint40 withdrawDelay;
        bytes32 salt;
    }

    struct ChannelState {
        /// @dev Deposited minus refunded and withdrawn; claimed funds stay counted here.
        uint128 balance;
        /// @dev Cumulative amount the receiver side has claimed; only ever grows.
        uint128 totalClaimed;
    }

    struct WithdrawalState {
        uint128 amount;
        /// @dev Zero when no withdrawal is pending.
        uint40 initiatedAt;
    }

    struct ReceiverState {
        uint128 totalClaimed;
        uint128 totalSettled;
    }

    struct Voucher {
        ChannelConfig channel;
        uint128 maxClaimableAmount;
    }

    /// @dev `totalClaimed` is the new cumulative total, not a delta: a replayed or older row is a no-op.
    struct VoucherClaim {
        Voucher voucher;
        bytes signature;
        uint128 totalClaimed;
    }

    uint40 public constant MIN_WITHDRAW_DELAY = 15 minutes;
    uint40 public constant MAX_WITHDRAW_DELAY = 30 days;

    bytes32 public constant CHANNEL_CONFIG_TYPEHASH = keccak256(
        "ChannelConfig(address payer,address payerAuthorizer,address receiver,address receiverAuthorizer,address token,uint40 withdrawDelay,bytes32 salt)"
    );
    bytes32 public constant VOUCHER_TYPEHASH = keccak256("Voucher(bytes32 channelId,uint128 maxClaimableAmount)");
    bytes32 public constant REFUND_TYPEHASH = keccak256("Refund(bytes32 channelId,uint256 nonce,uint128 amount)");
    bytes32 public constant CLAIM_ENTRY_TYPEHASH =
        keccak256("ClaimEntry(bytes32 channelId,uint128 maxClaimableAmount,uint128 totalClaimed)");
    bytes32 public constant CLAIM_BATCH_TYPEHASH = keccak256(
        "ClaimBatch(ClaimEntry[] claims)ClaimEntry(bytes32 channelId,uint128 maxClaimableAmount,uint128 totalClaimed)"
    );

    bytes32 private constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    bytes32 private constant NAME_HASH = keccak256("x402 Batch Settlement");
    bytes32 private constant VERSION_HASH = keccak256("1");

    mapping(bytes32 channelId => ChannelState) public channels;
    /// @notice The nonce the next `refundWithSignature` must carry. Every executed refund, direct or
    /// signed, advances it before anything else, even when no funds are left to return.
    mapping(bytes32 channelId => uint256) public refundNonce;
    mapping(bytes32 channelId => WithdrawalState) public pendingWithdrawals;
    mapping(address receiver => mapping(address token => ReceiverState)) public receivers;

    event ChannelCreated(bytes32 indexed channelId, ChannelConfig config);
    event ChannelClosed(bytes32 indexed channelId, ChannelConfig config);
    event Deposited(bytes32 indexed channelId, address indexed sender, uint128 amount, uint128 newBalance);
    event Claimed(bytes32 indexed channelId, address indexed sender, uint128 claimAmount, uint128 newTotalClaimed);
    event Settled(address indexed receiver, address indexed token, address indexed sender, uint128 amount);
    event Refunded(bytes32 indexed channelId, address indexed sender, uint128 amount);
    event WithdrawInitiated(bytes32 indexed channelId, uint128 amount, uint40 finalizeAfter);
    event WithdrawFinalized(bytes32 indexed channelId, address indexed sender, uint128 amount);

    error InvalidChannel();
    error ZeroDeposit();
    error DepositOverflow();
    error InvalidSignature();
    error NotReceiverAuthorizer();
    error NotAuthorizedToClaim();
    error NotAuthorizedToRefund();
    error ClaimExceedsCeiling();
    error ClaimExceedsBalance();
    error WithdrawalAlreadyPending();
    error WithdrawalNotPending();
    error NotAuthorizedToFinalizeWithdraw();
    error WithdrawDelayNotElapsed();
    error NothingToWithdraw();
    error WithdrawAmountExceedsAvailable();
    error WithdrawDelayOutOfRange();
    error EmptyBatch();
    error DepositCollectionFailed();
    error InvalidCollector();
    error InvalidRefundNonce();
    error ZeroRefund();

    // ---------------------------------------------------------------- deposits

    /// @notice Adds `amount` to the channel, pulled from the payer by `collector` with the
    /// authorization in `collectorData`. Anyone may submit it (the facilitator pays the gas).
    function deposit(ChannelConfig calldata config, uint128 amount, address collector, bytes calldata collectorData)
        external
        nonReentrant
    {
        if (
            config.payer == address(0) || config.receiver == address(0) || config.receiverAuthorizer == address(0)
                || config.token == address(0)
        ) revert InvalidChannel();
        if (config.withdrawDelay < MIN_WITHDRAW_DELAY || config.withdrawDelay > MAX_WITHDRAW_DELAY) {
            revert WithdrawDelayOutOfRange();
        }
        if (amount == 0) revert ZeroDeposit();
        if (collector == address(0)) revert InvalidCollector();

        bytes32 channelId = getChannelId(config);
        ChannelState storage ch = channels[channelId];
        uint128 before = ch.balance;
        if (amount > type(uint128).max - before) revert DepositOverflow();
        // Credited before the pull so a collector reentering through a hostile token finds the
        // guard held and the books already final.
        ch.balance = before + amount;

        IERC20 token = IERC20(config.token);
        uint256 held = token.balanceOf(address(this));
        IDepositCollector(collector).collect(config.payer, config.token, amount, channelId, collectorData);
        // The only proof of payment that counts: the contract holds exactly `amount` more.
        if (token.balanceOf(address(this)) != held + amount) revert DepositCollectionFailed();

        if (before == 0 && ch.totalClaimed == 0) emit ChannelCreated(channelId, config);
        emit Deposited(channelId, msg.sender, amount, before + amount);
    }

    // ---------------------------------------------------------------- claim and settle

    /// @notice Claims voucher rows, each for a channel whose receiver or receiver authorizer is the caller.
    function claim(VoucherClaim[] calldata voucherClaims) external nonReentrant {
        uint256 n = voucherClaims.length;
        if (n == 0) revert EmptyBatch();
        for (uint256 i; i < n; ++i) {
            ChannelConfig calldata c = voucherClaims[i].voucher.channel;
            if (msg.sender != c.receiver && msg.sender != c.receiverAuthorizer) revert NotAuthorizedToClaim();
            _claimOne(voucherClaims[i]);
        }
    }

    /// @notice Claims voucher rows of many channels sharing one receiver authorizer, whose EIP-712
    /// `ClaimBatch` signature over all rows lets anyone relay them.
    function claimWithSignature(VoucherClaim[] calldata voucherClaims, bytes calldata authorizerSignature)
        external
        nonReentrant
    {
        uint256 n = voucherClaims.length;
        if (n == 0) revert EmptyBatch();
        address authorizer = voucherClaims[0].voucher.channel.receiverAuthorizer;
        if (!SignatureChecker.isValidSignatureNow(authorizer, getClaimBatchDigest(voucherClaims), authorizerSignature)) {
            revert InvalidSignature();
        }
        for (uint256 i; i < n; ++i) {
            if (voucherClaims[i].voucher.channel.receiverAuthorizer != authorizer) revert NotReceiverAuthorizer();
            _claimOne(voucherClaims[i]);
        }
    }

    /// @notice Pays the receiver everything claimed for it in `token` and not yet paid, in one
    /// transfer. Permissionless: the money can only go to the receiver.
    function settle(address receiver, address token) external nonReentrant {
        ReceiverState storage rs = receivers[receiver][token];
        uint128 due = rs.totalClaimed - rs.totalSettled;
        if (due == 0) return;
        rs.totalSettled = rs.totalClaimed;
        IERC20(token).safeTransfer(receiver, due);
        emit Settled(receiver, token, msg.sender, due);
    }

    // ---------------------------------------------------------------- timed withdrawal

    /// @notice Starts the payer's escape hatch: after `withdrawDelay`, up to `amount` of what is
    /// then still unclaimed can be taken back. The receiver keeps claiming meanwhile.
    function initiateWithdraw(ChannelConfig calldata config, uint128 amount) external nonReentrant {
        if (msg.sender != config.payer && msg.sender != config.payerAuthorizer) revert InvalidChannel();
        if (amount == 0) revert NothingToWithdraw();
        bytes32 channelId = getChannelId(config);
        WithdrawalState storage w = pendingWithdrawals[channelId];
        if (w.initiatedAt != 0) revert WithdrawalAlreadyPending();
        ChannelState storage ch = channels[channelId];
        if (amount > ch.balance - ch.totalClaimed) revert WithdrawAmountExceedsAvailable();
        uint40 now_ = uint40(block.timestamp);
        w.amount = amount;
        w.initiatedAt = now_;
        emit WithdrawInitiated(channelId, amount, now_ + config.withdrawDelay);
    }

    /// @notice Completes a pending withdrawal once its delay has passed, capped to what claims left.
    function finalizeWithdraw(ChannelConfig calldata config) external nonReentrant {
        if (msg.sender != config.payer && msg.sender != config.payerAuthorizer) revert NotAuthorizedToFinalizeWithdraw();
        bytes32 channelId = getChannelId(config);
        WithdrawalState storage w = pendingWithdrawals[channelId];
        uint40 initiatedAt = w.initiatedAt;
        if (initiatedAt == 0) revert WithdrawalNotPending();
        if (block.timestamp < uint256(initiatedAt) + config.withdrawDelay) revert WithdrawDelayNotElapsed();

        ChannelState storage ch = channels[channelId];
        uint128 amount = _min(w.amount, ch.balance - ch.totalClaimed);
        delete pendingWithdrawals[channelId];
        ch.balance -= amount;
        emit WithdrawFinalized(channelId, msg.sender, amount);
        if (ch.balance == 0 && ch.totalClaimed == 0) emit ChannelClosed(channelId, config);
        if (amount != 0) IERC20(config.token).safeTransfer(config.payer, amount);
    }

    // ---------------------------------------------------------------- cooperative refund

    /// @notice Returns up to `amount` of unclaimed escrow to the payer; called by the receiver side.
    function refund(ChannelConfig calldata config, uint128 amount) external nonReentrant {
        if (msg.sender != config.receiver && msg.sender != config.receiverAuthorizer) revert NotAuthorizedToRefund();
        _refund(config, getChannelId(config), amount);
    }

    /// @notice As `refund`, relayed by anyone with the receiver authorizer's EIP-712 `Refund`
    /// signature for the channel's current refund nonce.
    function refundWithSignature(
        ChannelConfig calldata config,
        uint128 amount,
        uint256 nonce,
        bytes calldata receiverAuthorizerSignature
    ) external nonReentrant {
        bytes32 channelId = getChannelId(config);
        if (nonce != refundNonce[channelId]) revert InvalidRefundNonce();
        if (
            !SignatureChecker.isValidSignatureNow(
                config.receiverAuthorizer, getRefundDigest(channelId, nonce, amount), receiverAuthorizerSignature
            )
        ) revert InvalidSignature();
        _refund(config, channelId, amount);
    }

    // ---------------------------------------------------------------- views

    function getChannelId(ChannelConfig calldata config) public view returns (bytes32) {
        return _typedDataHash(keccak256(abi.encode(CHANNEL_CONFIG_TYPEHASH, config)));
    }

    function getVoucherDigest(bytes32 channelId, uint128 maxClaimableAmount) public view returns (bytes32) {
        return _typedDataHash(keccak256(abi.encode(VOUCHER_TYPEHASH, channelId, maxClaimableAmount)));
    }

    function getRefundDigest(bytes32 channelId, uint256 nonce, uint128 amount) public view returns (bytes32) {
        return _typedDataHash(keccak256(abi.encode(REFUND_TYPEHASH, channelId, nonce, amount)));
    }

    /// @notice The digest a receiver authorizer signs for `claimWithSignature` (EIP-712 `ClaimBatch`).
    function getClaimBatchDigest(VoucherClaim[] calldata voucherClaims) public view returns (bytes32) {
        uint256 n = voucherClaims.length;
        bytes32[] memory entries = new bytes32[](n);
        for (uint256 i; i < n; ++i) {
            VoucherClaim calldata vc = voucherClaims[i];
            entries[i] = keccak256(
                abi.encode(CLAIM_ENTRY_TYPEHASH, getChannelId(vc.voucher.channel), vc.voucher.maxClaimableAmount, vc.totalClaimed)
            );
        }
        return _typedDataHash(keccak256(abi.encode(CLAIM_BATCH_TYPEHASH, keccak256(abi.encodePacked(entries)))));
    }

    /// @notice EIP-5267: the domain wallets and tools should sign under.
    function eip712Domain()
        external
        view
        returns (
            bytes1 fields,
            string memory name,
            string memory version,
            uint256 chainId,
            address verifyingContract,
            bytes32 salt,
            uint256[] memory extensions
        )
    {
        return (hex"0f", "x402 Batch Settlement", "1", block.chainid, address(this), bytes32(0), new uint256[](0));
    }

    // ---------------------------------------------------------------- internals

    function _typedDataHash(bytes32 structHash) private view returns (bytes32) {
        bytes32 domainSeparator = keccak256(abi.encode(DOMAIN_TYPEHASH, NAME_HASH, VERSION_HASH, block.chainid, address(this)));
        return keccak256(abi.encodePacked("\x19\x01", domainSeparator, structHash));
    }

    /// @dev One voucher row: a no-op unless it raises the channel's claimed total; never above the
    /// signed ceiling nor above the escrow; signed by the payer authorizer (ECDSA only, so a server
    /// can check it without a chain read) or, when that is zero, by the payer (ERC-1271 too).
    function _claimOne(VoucherClaim calldata vc) private {
        ChannelConfig calldata c = vc.voucher.channel;
        bytes32 channelId = getChannelId(c);
        ChannelState storage ch = channels[channelId];
        uint128 claimed = ch.totalClaimed;
        uint128 next = vc.totalClaimed;
        if (next <= claimed) return;
        if (next > vc.voucher.maxClaimableAmount) revert ClaimExceedsCeiling();
        if (next > ch.balance) revert ClaimExceedsBalance();

        bytes32 digest = getVoucherDigest(channelId, vc.voucher.maxClaimableAmount);
        bool valid = c.payerAuthorizer != address(0)
            ? ECDSA.recoverCalldata(digest, vc.signature) == c.payerAuthorizer
            : SignatureChecker.isValidSignatureNow(c.payer, digest, vc.signature);
        if (!valid) revert InvalidSignature();

        uint128 delta = next - claimed;
        ch.totalClaimed = next;
        receivers[c.receiver][c.token].totalClaimed += delta;
        emit Claimed(channelId, msg.sender, delta, next);
    }

    /// @dev The nonce advances first, whatever happens next, so a signed refund can never be
    /// replayed and a direct refund voids any signature made for the old nonce.
    function _refund(ChannelConfig calldata config, bytes32 channelId, uint128 amount) private {
        if (amount == 0) revert ZeroRefund();
        unchecked {
            ++refundNonce[channelId];
        }
        ChannelState storage ch = channels[channelId];
        uint128 refunded = _min(amount, ch.balance - ch.totalClaimed);
        if (refunded == 0) return;
        ch.balance -= refunded;

        // A pending withdrawal shrinks by what the refund already returned.
        WithdrawalState storage w = pendingWithdrawals[channelId];
        if (w.initiatedAt != 0) {
            if (refunded >= w.amount) delete pendingWithdrawals[channelId];
            else w.amount -= refunded;
        }

        emit Refunded(channelId, msg.sender, refunded);
        if (ch.balance == 0 && ch.totalClaimed == 0) emit ChannelClosed(channelId, config);
        IERC20(config.token).safeTransfer(config.payer, refunded);
    }

    function _min(uint128 a, uint128 b) private pure returns (uint128) {
        return a < b ? a : b;
    }
}
