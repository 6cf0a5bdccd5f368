// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {MessageHashUtils} from "@openzeppelin/contracts/utils/cryptography/MessageHashUtils.sol";

/// @notice ERC-4337 v0.7/v0.8 packed user operation (the EntryPoint's calldata layout).
struct PackedUserOperation {
    address sender;
    uint256 nonce;
    bytes initCode;
    bytes callData;
    bytes32 accountGasLimits;
    uint256 preVerificationGas;
    bytes32 gasFees;
    bytes paymasterAndData;
    bytes signature;
}

/// @notice The part of the EntryPoint v0.8 stake manager a paymaster calls.
interface IEntryPointStakes {
    function depositTo(address account) external payable;
    function addStake(uint32 unstakeDelaySec) external payable;
    function unlockStake() external;
    function withdrawStake(address payable withdrawAddress) external;
    function withdrawTo(address payable withdrawAddress, uint256 withdrawAmount) external;
    function balanceOf(address account) external view returns (uint256);
}

/// @title Pays the gas of user operations our sponsor signed (EntryPoint v0.8).
/// @notice The platform's agent wallets hold no ETH: the sponsor (an off-chain key) signs each
/// operation it agrees to pay for, and this contract pays from its EntryPoint deposit.
/// Written for this project; it keeps the hash layout of eth-infinitism's VerifyingPaymaster sample
/// (so tooling that knows that sample reads ours) and imports nothing from that package.
/// @dev paymasterAndData = paymaster (20) | verificationGasLimit (16) | postOpGasLimit (16)
///      | validUntil (6) | validAfter (6) | signature (65). The signature is an EIP-191 personal
///      signature of getHash(); daemon/platform/aa/sponsor.ts computes the same hash.
///      A wrong signature returns SIG_VALIDATION_FAILED (not a revert), so bundlers can estimate
///      gas with a dummy signature.
contract VerifyingPaymaster is Ownable {
    uint256 private constant PAYMASTER_VALIDATION_GAS_OFFSET = 20;
    uint256 private constant PAYMASTER_DATA_OFFSET = 52;
    uint256 private constant VALID_TIMESTAMP_OFFSET = PAYMASTER_DATA_OFFSET;
    uint256 private constant SIGNATURE_OFFSET = VALID_TIMESTAMP_OFFSET + 12;
    uint256 private constant SIG_VALIDATION_FAILED = 1;

    IEntryPointStakes public immutable entryPoint;
    /// @notice The sponsor key; rotated by the owner without redeploying (the deposit stays).
    address public signer;

    event SignerChanged(address indexed previous, address indexed next);

    error NotFromEntryPoint(address caller);
    error MalformedPaymasterData(uint256 length);
    error PostOpNotExpected();

    constructor(IEntryPointStakes entryPoint_, address signer_, address owner_) Ownable(owner_) {
        entryPoint = entryPoint_;
        signer = signer_;
    }

    function setSigner(address next) external onlyOwner {
        emit SignerChanged(signer, next);
        signer = next;
    }

    /// @notice What the sponsor signs: every field of the operation except its own signature and
    /// the paymaster's signature, bound to this chain and this paymaster.
    function getHash(PackedUserOperation calldata userOp, uint48 validUntil, uint48 validAfter) public view returns (bytes32) {
        return keccak256(
            abi.encode(
                userOp.sender,
                userOp.nonce,
                keccak256(userOp.initCode),
                keccak256(userOp.callData),
                userOp.accountGasLimits,
                uint256(bytes32(userOp.paymasterAndData[PAYMASTER_VALIDATION_GAS_OFFSET:PAYMASTER_DATA_OFFSET])),
                userOp.preVerificationGas,
                userOp.gasFees,
                block.chainid,
                address(this),
                validUntil,
                validAfter
            )
        );
    }

    /// @notice IPaymaster.validatePaymasterUserOp: no context, so the EntryPoint never calls postOp.
    function validatePaymasterUserOp(PackedUserOperation calldata userOp, bytes32, uint256)
        external
        view
        returns (bytes memory context, uint256 validationData)
    {
        if (msg.sender != address(entryPoint)) revert NotFromEntryPoint(msg.sender);
        bytes calldata pnd = userOp.paymasterAndData;
        if (pnd.length != SIGNATURE_OFFSET + 65) revert MalformedPaymasterData(pnd.length);
        uint48 validUntil = uint48(bytes6(pnd[VALID_TIMESTAMP_OFFSET:VALID_TIMESTAMP_OFFSET + 6]));
        uint48 validAfter = uint48(bytes6(pnd[VALID_TIMESTAMP_OFFSET + 6:SIGNATURE_OFFSET]));
        bytes32 hash = MessageHashUtils.toEthSignedMessageHash(getHash(userOp, validUntil, validAfter));
        (address recovered, ECDSA.RecoverError err,) = ECDSA.tryRecover(hash, pnd[SIGNATURE_OFFSET:]);
        uint256 failed = err == ECDSA.RecoverError.NoError && recovered == signer ? 0 : SIG_VALIDATION_FAILED;
        return ("", failed | (uint256(validUntil) << 160) | (uint256(validAfter) << 208));
    }

    /// @notice IPaymaster.postOp: unreachable, as validation returns no context.
    function postOp(uint8, bytes calldata, uint256, uint256) external pure {
        revert PostOpNotExpected();
    }

    function deposit() external payable {
        entryPoint.depositTo{value: msg.value}(address(this));
    }

    function getDeposit() external view returns (uint256) {
        return entryPoint.balanceOf(address(this));
    }

    function withdrawTo(address payable to, uint256 amount) external onlyOwner {
        entryPoint.withdrawTo(to, amount);
    }

    /// @notice Bundlers accept a paymaster's storage reads only when it is staked.
    function addStake(uint32 unstakeDelaySec) external payable onlyOwner {
        entryPoint.addStake{value: msg.value}(unstakeDelaySec);
    }

    function unlockStake() external onlyOwner {
        entryPoint.unlockStake();
    }

    function withdrawStake(address payable to) external onlyOwner {
        entryPoint.withdrawStake(to);
    }
}
