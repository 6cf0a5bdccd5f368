// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

interface IERC1271Lite {
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4);
}

/// @title The signature-transfer half of Permit2, for the embedded chains.
/// @notice Stock x402 clients sign Permit2 `PermitWitnessTransferFrom` messages for the canonical
/// Permit2 address. The embedded chains have no Permit2, so parx installs this runtime code there
/// with `anvil_setCode`: same entry points, same EIP-712 hashing, same unordered nonces, so the
/// signatures those clients produce settle unchanged. Allowance transfers are not needed by x402.
/// @dev No constructor state and no immutables: the code is placed, never deployed, so the domain
/// separator is computed from `address(this)` and `block.chainid` on every call.
contract Permit2Lite {
    struct TokenPermissions {
        address token;
        uint256 amount;
    }

    struct PermitTransferFrom {
        TokenPermissions permitted;
        uint256 nonce;
        uint256 deadline;
    }

    struct SignatureTransferDetails {
        address to;
        uint256 requestedAmount;
    }

    bytes32 public constant _TOKEN_PERMISSIONS_TYPEHASH = keccak256("TokenPermissions(address token,uint256 amount)");
    bytes32 public constant _PERMIT_TRANSFER_FROM_TYPEHASH =
        keccak256("PermitTransferFrom(TokenPermissions permitted,address spender,uint256 nonce,uint256 deadline)TokenPermissions(address token,uint256 amount)");
    /// @dev The caller appends its witness type (`<Type> witness)` then the referenced struct types, sorted).
    string public constant _PERMIT_TRANSFER_FROM_WITNESS_TYPEHASH_STUB =
        "PermitWitnessTransferFrom(TokenPermissions permitted,address spender,uint256 nonce,uint256 deadline,";
    bytes32 private constant DOMAIN_TYPEHASH = keccak256("EIP712Domain(string name,uint256 chainId,address verifyingContract)");
    bytes32 private constant NAME_HASH = keccak256("Permit2");
    bytes4 private constant ERC1271_MAGIC = 0x1626ba7e;

    /// @notice Per owner, 256 nonces a word: bit `nonce & 255` of word `nonce >> 8` is set once used.
    mapping(address => mapping(uint256 => uint256)) public nonceBitmap;

    event UnorderedNonceInvalidation(address indexed owner, uint256 word, uint256 mask);

    error SignatureExpired(uint256 signatureDeadline);
    error InvalidAmount(uint256 maxAmount);
    error InvalidNonce();
    error InvalidSignature();
    error InvalidSigner();
    error InvalidSignatureLength();
    error InvalidContractSignature();
    error TransferFromFailed();

    function DOMAIN_SEPARATOR() public view returns (bytes32) {
        return keccak256(abi.encode(DOMAIN_TYPEHASH, NAME_HASH, block.chainid, address(this)));
    }

    function permitTransferFrom(
        PermitTransferFrom calldata permit,
        SignatureTransferDetails calldata transferDetails,
        address owner,
        bytes calldata signature
    ) external {
        bytes32 structHash = keccak256(
            abi.encode(_PERMIT_TRANSFER_FROM_TYPEHASH, _hashPermissions(permit.permitted), msg.sender, permit.nonce, permit.deadline)
        );
        _transfer(permit, transferDetails, owner, structHash, signature);
    }

    function permitWitnessTransferFrom(
        PermitTransferFrom calldata permit,
        SignatureTransferDetails calldata transferDetails,
        address owner,
        bytes32 witness,
        string calldata witnessTypeString,
        bytes calldata signature
    ) external {
        bytes32 typeHash = keccak256(abi.encodePacked(_PERMIT_TRANSFER_FROM_WITNESS_TYPEHASH_STUB, witnessTypeString));
        bytes32 structHash =
            keccak256(abi.encode(typeHash, _hashPermissions(permit.permitted), msg.sender, permit.nonce, permit.deadline, witness));
        _transfer(permit, transferDetails, owner, structHash, signature);
    }

    /// @notice Burns nonces ahead of use, so signatures carrying them can never settle.
    function invalidateUnorderedNonces(uint256 wordPos, uint256 mask) external {
        nonceBitmap[msg.sender][wordPos] |= mask;
        emit UnorderedNonceInvalidation(msg.sender, wordPos, mask);
    }

    function _transfer(
        PermitTransferFrom calldata permit,
        SignatureTransferDetails calldata details,
        address owner,
        bytes32 structHash,
        bytes calldata signature
    ) private {
        if (block.timestamp > permit.deadline) revert SignatureExpired(permit.deadline);
        if (details.requestedAmount > permit.permitted.amount) revert InvalidAmount(permit.permitted.amount);
        _useNonce(owner, permit.nonce);
        _checkSignature(owner, keccak256(abi.encodePacked("\x19\x01", DOMAIN_SEPARATOR(), structHash)), signature);
        _pull(permit.permitted.token, owner, details.to, details.requestedAmount);
    }

    function _hashPermissions(TokenPermissions calldata p) private pure returns (bytes32) {
        return keccak256(abi.encode(_TOKEN_PERMISSIONS_TYPEHASH, p.token, p.amount));
    }

    function _useNonce(address owner, uint256 nonce) private {
        uint256 bit = 1 << (nonce & 0xff);
        uint256 flipped = nonceBitmap[owner][nonce >> 8] ^= bit;
        if (flipped & bit == 0) revert InvalidNonce();
    }

    /// @dev EOAs sign with ECDSA (65 bytes, or 64 in EIP-2098 compact form); contracts answer ERC-1271.
    function _checkSignature(address owner, bytes32 digest, bytes calldata signature) private view {
        if (owner.code.length > 0) {
            if (IERC1271Lite(owner).isValidSignature(digest, signature) != ERC1271_MAGIC) revert InvalidContractSignature();
            return;
        }
        bytes32 r;
        bytes32 s;
        uint8 v;
        if (signature.length == 65) {
            (r, s) = abi.decode(signature[:64], (bytes32, bytes32));
            v = uint8(signature[64]);
        } else if (signature.length == 64) {
            bytes32 vs;
            (r, vs) = abi.decode(signature, (bytes32, bytes32));
            s = vs & bytes32(uint256(type(int256).max));
            v = uint8(uint256(vs >> 255)) + 27;
        } else {
            revert InvalidSignatureLength();
        }
        address signer = ecrecover(digest, v, r, s);
        if (signer == address(0)) revert InvalidSignature();
        if (signer != owner) revert InvalidSigner();
    }

    /// @dev Tolerates tokens that return nothing from transferFrom, as Permit2 does. A token's own
    /// revert is passed up as is, so a facilitator can tell a short balance from a missing approval.
    function _pull(address token, address from, address to, uint256 amount) private {
        (bool ok, bytes memory ret) = token.call(abi.encodeWithSignature("transferFrom(address,address,uint256)", from, to, amount));
        if (!ok && ret.length > 0) {
            assembly {
                revert(add(ret, 32), mload(ret))
            }
        }
        if (!ok || (ret.length > 0 && !abi.decode(ret, (bool))) || (ret.length == 0 && token.code.length == 0)) revert TransferFromFailed();
    }
}
