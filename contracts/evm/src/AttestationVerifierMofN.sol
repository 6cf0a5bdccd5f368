// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {IDeliveryVerifier} from "./IDeliveryVerifier.sol";

/// @title M-of-N attestor quorum over cross-chain deliveries.
/// @notice Each attestor checks a fill on the destination chain itself and signs the EIP-712
/// `Delivery` under this contract's domain (ERC-5267 `eip712Domain()`); a delivery counts once
/// `threshold` distinct attestors signed it. The owner sets the attestor set and the threshold.
contract AttestationVerifierMofN is IDeliveryVerifier, EIP712, Ownable {
    bytes32 public constant DELIVERY_TYPEHASH = keccak256(
        "Delivery(bytes32 orderId,bytes32 destChain,bytes32 recipient,bytes32 outputToken,uint256 amount,bytes32 solver)"
    );

    /// @notice Attestors are tracked as bits of one word, so duplicate detection is a mask test.
    uint256 public constant MAX_ATTESTORS = 32;

    address[] private _attestors;
    /// @dev `1 << index` for an attestor, 0 for everyone else (including address(0)).
    mapping(address attestor => uint256) private _bit;
    uint256 public threshold;

    event AttestorsSet(address[] attestors, uint256 threshold);

    error NotEnoughSignatures(uint256 given, uint256 threshold);
    error MalformedSignature(uint256 index);
    error UnknownSigner(uint256 index, address signer);
    error DuplicateSigner(uint256 index, address signer);
    error InvalidThreshold(uint256 threshold, uint256 attestors);
    error InvalidAttestor(address attestor);
    error TooManyAttestors(uint256 count);

    constructor(address owner_, address[] memory attestors_, uint256 threshold_)
        EIP712("ParxAttestationVerifier", "1")
        Ownable(owner_)
    {
        _setAttestors(attestors_, threshold_);
    }

    /// @notice Replaces the whole set at once, so there is never a moment with a half-changed quorum.
    /// Signatures of removed attestors stop counting immediately, also for orders already open.
    function setAttestors(address[] calldata attestors_, uint256 threshold_) external onlyOwner {
        _setAttestors(attestors_, threshold_);
    }

    function attestors() external view returns (address[] memory) {
        return _attestors;
    }

    function isAttestor(address who) external view returns (bool) {
        return _bit[who] != 0;
    }

    /// @notice The digest an attestor signs for `delivery` (evmDeliveryDigest in statement.ts).
    function hashDelivery(Delivery calldata delivery) public view returns (bytes32) {
        return _hashTypedDataV4(keccak256(abi.encode(DELIVERY_TYPEHASH, delivery)));
    }

    /// @inheritdoc IDeliveryVerifier
    /// @dev Every signature given must be a distinct attestor's, not just `threshold` of them: a
    /// bundle with a bad entry is refused rather than silently trimmed, so a broken attestor shows.
    function verifyDelivery(Delivery calldata delivery, bytes[] calldata signatures) external view {
        uint256 need = threshold;
        if (signatures.length < need) revert NotEnoughSignatures(signatures.length, need);
        bytes32 digest = hashDelivery(delivery);
        uint256 seen;
        for (uint256 i; i < signatures.length; ++i) {
            // tryRecover rejects wrong lengths, high-s (malleable) signatures and unrecoverable ones.
            (address signer, ECDSA.RecoverError err,) = ECDSA.tryRecoverCalldata(digest, signatures[i]);
            if (err != ECDSA.RecoverError.NoError) revert MalformedSignature(i);
            uint256 bit = _bit[signer];
            if (bit == 0) revert UnknownSigner(i, signer);
            if (seen & bit != 0) revert DuplicateSigner(i, signer);
            seen |= bit;
        }
    }

    function _setAttestors(address[] memory attestors_, uint256 threshold_) private {
        if (attestors_.length > MAX_ATTESTORS) revert TooManyAttestors(attestors_.length);
        if (threshold_ == 0 || threshold_ > attestors_.length) revert InvalidThreshold(threshold_, attestors_.length);
        for (uint256 i; i < _attestors.length; ++i) delete _bit[_attestors[i]];
        for (uint256 i; i < attestors_.length; ++i) {
            address a = attestors_[i];
            if (a == address(0) || _bit[a] != 0) revert InvalidAttestor(a);
            _bit[a] = 1 << i;
        }
        _attestors = attestors_;
        threshold = threshold_;
        emit AttestorsSet(attestors_, threshold_);
    }
}
