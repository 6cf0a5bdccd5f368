// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {ERC3009} from "@openzeppelin/contracts/token/ERC20/extensions/draft-ERC3009.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";
import {PermitToken} from "./PermitToken.sol";

/// @title USDC-like token: EIP-2612 plus EIP-3009 with the call surface of Circle's FiatToken v2.2.
/// @notice Reference x402 clients sign EIP-3009 TransferWithAuthorization against USDC's domain and
/// the reference facilitator calls either the (v,r,s) or the `bytes signature` overload, so both
/// exist and, as in FiatToken v2.2, both accept ERC-1271 signatures from contract wallets.
/// @dev Typehashes, random bytes32 nonces, `authorizationState` and the events come from OZ's ERC3009,
/// which matches FiatToken v2. Unlike FiatToken, OZ reads validAfter/validBefore as block numbers when
/// both carry bit 47; Unix timestamps never do, so x402 payloads behave as on real USDC.
contract UsdcToken is PermitToken, ERC3009 {
    constructor(string memory name_, string memory symbol_, string memory version_, uint8 decimals_, address minter_)
        PermitToken(name_, symbol_, version_, decimals_, minter_)
    {}

    function decimals() public view override(ERC20, PermitToken) returns (uint8) {
        return PermitToken.decimals();
    }

    function permit(address owner, address spender, uint256 value, uint256 deadline, bytes memory signature)
        external
    {
        _permit(owner, spender, value, deadline, signature);
    }

    function transferWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) public override {
        transferWithAuthorization(from, to, value, validAfter, validBefore, nonce, abi.encodePacked(r, s, v));
    }

    function transferWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes memory signature
    ) public {
        bytes32 structHash =
            keccak256(abi.encode(TRANSFER_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce));
        _requireSignedBy(from, structHash, signature);
        _transferWithAuthorization(from, to, value, validAfter, validBefore, nonce);
    }

    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) public override {
        receiveWithAuthorization(from, to, value, validAfter, validBefore, nonce, abi.encodePacked(r, s, v));
    }

    /// @notice Like transferWithAuthorization, but only the payee may submit it, so a watcher of the
    /// mempool cannot front-run a payee contract's deposit logic.
    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes memory signature
    ) public {
        if (to != _msgSender()) revert ERC20InvalidReceiver(to);
        bytes32 structHash =
            keccak256(abi.encode(RECEIVE_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce));
        _requireSignedBy(from, structHash, signature);
        _transferWithAuthorization(from, to, value, validAfter, validBefore, nonce);
    }

    function cancelAuthorization(address authorizer, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)
        public
        override
    {
        cancelAuthorization(authorizer, nonce, abi.encodePacked(r, s, v));
    }

    function cancelAuthorization(address authorizer, bytes32 nonce, bytes memory signature) public {
        _requireSignedBy(authorizer, keccak256(abi.encode(CANCEL_AUTHORIZATION_TYPEHASH, authorizer, nonce)), signature);
        _cancelAuthorization(authorizer, nonce);
    }

    function _requireSignedBy(address signer, bytes32 structHash, bytes memory signature) private view {
        if (!SignatureChecker.isValidSignatureNow(signer, _hashTypedDataV4(structHash), signature)) {
            revert ERC3009InvalidSignature();
        }
    }
}
