import { type Address, concat, encodeFunctionData, getContractAddress, type Hex, keccak256, parseAbi } from 'viem'
import { compileInline } from './compile-inline.js'

/**
 * A minimal ERC-1271 smart wallet and its CREATE2 factory, for tests of contract-wallet payers:
 * the wallet answers `isValidSignature` with the magic value when its owner's key signed the hash
 * (as SimpleAccount-style and Light accounts do), and the factory deploys it at an address known
 * in advance, so a counterfactual wallet can sign (ERC-6492) before it exists. Compiled here with
 * the pinned solc-js: test code, not part of the daemon's contracts.
 */
const SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

contract OwnedWallet {
    address public immutable owner;

    constructor(address owner_) {
        owner = owner_;
    }

    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        if (signature.length != 65) return 0xffffffff;
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        address signer = ecrecover(hash, v, r, s);
        return signer != address(0) && signer == owner ? bytes4(0x1626ba7e) : bytes4(0xffffffff);
    }
}

contract OwnedWalletFactory {
    function createAccount(address owner, uint256 salt) external returns (address wallet) {
        wallet = getAddress(owner, salt);
        if (wallet.code.length > 0) return wallet;
        return address(new OwnedWallet{salt: bytes32(salt)}(owner));
    }

    function getAddress(address owner, uint256 salt) public view returns (address) {
        bytes32 code = keccak256(abi.encodePacked(type(OwnedWallet).creationCode, abi.encode(owner)));
        return address(uint160(uint256(keccak256(abi.encodePacked(bytes1(0xff), address(this), bytes32(salt), code)))));
    }
}
`

type Compiled = { walletBytecode: Hex; factoryBytecode: Hex }
let compiled: Compiled | undefined

function compile(): Compiled {
  if (compiled) return compiled
  const c = compileInline('OwnedWallet.sol', SOURCE)
  compiled = { walletBytecode: c.OwnedWallet!, factoryBytecode: c.OwnedWalletFactory! }
  return compiled
}

export const ownedWalletFactoryAbi = parseAbi([
  'function createAccount(address owner, uint256 salt) returns (address)',
  'function getAddress(address owner, uint256 salt) view returns (address)',
])

/** anvil's deterministic CREATE2 deployer: a factory deployed through it has a fixed address per salt. */
const CREATE2_DEPLOYER: Address = '0x4e59b44847b379578588920ca78fbf26c0b4956c'

/** Where a factory lands (and the calldata deploying it) through the CREATE2 deployer with this salt label. */
export function ownedWalletFactory(label: string): { address: Address; deployTx: { to: Address; data: Hex } } {
  const { factoryBytecode } = compile()
  const salt = keccak256(new TextEncoder().encode(label))
  return {
    address: getContractAddress({ opcode: 'CREATE2', from: CREATE2_DEPLOYER, salt, bytecode: factoryBytecode }),
    deployTx: { to: CREATE2_DEPLOYER, data: concat([salt, factoryBytecode]) },
  }
}

/** The factory call that deploys `owner`'s wallet with `salt` (what an ERC-6492 signature carries). */
export const createAccountData = (owner: Address, salt: bigint): Hex =>
  encodeFunctionData({ abi: ownedWalletFactoryAbi, functionName: 'createAccount', args: [owner, salt] })
