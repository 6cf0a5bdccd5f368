// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {IERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";
import {Nonces} from "@openzeppelin/contracts/utils/Nonces.sol";

/// @title ERC-20 with EIP-2612 permit under a configurable EIP-712 domain.
/// @notice OZ's ERC20Permit fixes the domain version to "1"; real stablecoins differ (USDC uses "2"),
/// and clients must be able to tell tokens apart by domain, so name and version are constructor inputs.
contract PermitToken is ERC20, IERC20Permit, EIP712, Nonces {
    bytes32 private constant PERMIT_TYPEHASH =
        keccak256("Permit(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)");

    /// @notice The only account allowed to create supply (the local faucet and chain seeding).
    address public immutable minter;
    uint8 private immutable _decimals;

    error NotMinter(address caller);
    error ERC2612ExpiredSignature(uint256 deadline);
    error InvalidPermitSignature(address owner);

    /// @param name_ Token name and EIP-712 domain name: wallets show one and sign the other, so they match.
    constructor(string memory name_, string memory symbol_, string memory version_, uint8 decimals_, address minter_)
        ERC20(name_, symbol_)
        EIP712(name_, version_)
    {
        minter = minter_;
        _decimals = decimals_;
    }

    function decimals() public view virtual override returns (uint8) {
        return _decimals;
    }

    /// @notice The EIP-712 domain version; x402 facilitators read it to explain signature failures.
    function version() external view returns (string memory) {
        return _EIP712Version();
    }

    function mint(address to, uint256 amount) external {
        if (msg.sender != minter) revert NotMinter(msg.sender);
        _mint(to, amount);
    }

    function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)
        public
        virtual
    {
        _permit(owner, spender, value, deadline, abi.encodePacked(r, s, v));
    }

    function nonces(address owner) public view virtual override(IERC20Permit, Nonces) returns (uint256) {
        return super.nonces(owner);
    }

    // solhint-disable-next-line func-name-mixedcase
    function DOMAIN_SEPARATOR() external view returns (bytes32) {
        return _domainSeparatorV4();
    }

    /// @dev Goes through SignatureChecker (as FiatToken v2.2 does) so smart-contract wallets can
    /// permit via ERC-1271 too; EOAs still get ECDSA with malleable signatures rejected.
    function _permit(address owner, address spender, uint256 value, uint256 deadline, bytes memory signature)
        internal
    {
        if (block.timestamp > deadline) revert ERC2612ExpiredSignature(deadline);
        bytes32 structHash = keccak256(abi.encode(PERMIT_TYPEHASH, owner, spender, value, _useNonce(owner), deadline));
        if (!SignatureChecker.isValidSignatureNow(owner, _hashTypedDataV4(structHash), signature)) {
            revert InvalidPermitSignature(owner);
        }
        _approve(owner, spender, value);
    }
}
