import { type Hex, parseAbi } from 'viem'
import { compileInline } from './compile-inline.js'

/**
 * A hostile token for the auth-capture reentrancy tests: a bare ERC-20 that is also a token
 * collector (of the type `setCollectorType` says) and the payment's operator (`exec` forwards its
 * calls to the escrow, so the escrow sees it as `msg.sender`). Whenever it is asked to collect or
 * it moves tokens (the token store paying out), it calls the escrow again with the calldata set by
 * `setAttack` and records whether that succeeded. `setShortBy` makes `collectTokens` bring less
 * than asked (a lying collector). Test code, compiled here with the pinned solc-js.
 */
const SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

contract HostileAuthCaptureToken {
    struct PaymentInfo {
        address operator;
        address payer;
        address receiver;
        address token;
        uint120 maxAmount;
        uint48 preApprovalExpiry;
        uint48 authorizationExpiry;
        uint48 refundExpiry;
        uint16 minFeeBps;
        uint16 maxFeeBps;
        address feeReceiver;
        uint256 salt;
    }

    mapping(address => uint256) public balanceOf;
    address public immutable escrow;
    uint8 public collectorType;
    bytes public attack;
    uint256 public shortBy;
    uint256 public attempts;
    uint256 public successes;
    bytes public lastRevert;

    constructor(address escrow_) {
        escrow = escrow_;
    }

    function setAttack(bytes calldata a) external {
        attack = a;
    }

    function setShortBy(uint256 s) external {
        shortBy = s;
    }

    function setCollectorType(uint8 t) external {
        collectorType = t;
    }

    function mint(address to, uint256 value) external {
        balanceOf[to] += value;
    }

    function exec(bytes calldata data) external {
        (bool ok, bytes memory ret) = escrow.call(data);
        if (!ok) {
            assembly {
                revert(add(ret, 32), mload(ret))
            }
        }
    }

    function transfer(address to, uint256 value) external returns (bool) {
        balanceOf[msg.sender] -= value;
        balanceOf[to] += value;
        _strike();
        return true;
    }

    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        balanceOf[from] -= value;
        balanceOf[to] += value;
        return true;
    }

    function collectTokens(PaymentInfo calldata, address tokenStore, uint256 amount, bytes calldata) external {
        balanceOf[tokenStore] += amount - shortBy;
        _strike();
    }

    function _strike() private {
        if (attack.length == 0) return;
        attempts++;
        (bool ok, bytes memory ret) = escrow.call(attack);
        if (ok) successes++;
        else lastRevert = ret;
    }
}
`

export const hostileAuthCaptureTokenAbi = parseAbi([
  'constructor(address escrow)',
  'function setAttack(bytes a)',
  'function setShortBy(uint256 s)',
  'function setCollectorType(uint8 t)',
  'function mint(address to, uint256 value)',
  'function exec(bytes data)',
  'function balanceOf(address) view returns (uint256)',
  'function attempts() view returns (uint256)',
  'function successes() view returns (uint256)',
  'function lastRevert() view returns (bytes)',
])

let bytecode: Hex | undefined

export function hostileAuthCaptureTokenBytecode(): Hex {
  return (bytecode ??= compileInline('HostileAuthCaptureToken.sol', SOURCE).HostileAuthCaptureToken!)
}
