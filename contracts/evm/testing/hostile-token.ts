import { type Hex, parseAbi } from 'viem'
import { compileInline } from './compile-inline.js'

/**
 * A hostile token for the batch-settlement reentrancy tests: a bare ERC-20 that is also its own
 * deposit collector and, as the channel's receiver, allowed to claim and refund. Whenever the
 * settlement contract pays it out (transfer) or asks it to collect, it calls back into the
 * settlement contract with the calldata set by `setAttack` and records whether that succeeded.
 * `setShortBy` makes `collect` bring less than asked (a lying collector). Compiled here with the
 * pinned solc-js: test code, not part of the daemon's contracts.
 */
const SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

contract HostileToken {
    mapping(address => uint256) public balanceOf;
    address public immutable settlement;
    bytes public attack;
    uint256 public shortBy;
    uint256 public attempts;
    uint256 public successes;
    bytes public lastRevert;

    constructor(address settlement_) {
        settlement = settlement_;
    }

    function setAttack(bytes calldata a) external {
        attack = a;
    }

    function setShortBy(uint256 s) external {
        shortBy = s;
    }

    function mint(address to, uint256 value) external {
        balanceOf[to] += value;
    }

    function transfer(address to, uint256 value) external returns (bool) {
        balanceOf[msg.sender] -= value;
        balanceOf[to] += value;
        if (msg.sender == settlement) _strike();
        return true;
    }

    function collect(address, address, uint256 amount, bytes32, bytes calldata) external {
        balanceOf[settlement] += amount - shortBy;
        _strike();
    }

    function _strike() private {
        if (attack.length == 0) return;
        attempts++;
        (bool ok, bytes memory ret) = settlement.call(attack);
        if (ok) successes++;
        else lastRevert = ret;
    }
}
`

export const hostileTokenAbi = parseAbi([
  'constructor(address settlement)',
  'function setAttack(bytes a)',
  'function setShortBy(uint256 s)',
  'function mint(address to, uint256 value)',
  'function balanceOf(address) view returns (uint256)',
  'function attempts() view returns (uint256)',
  'function successes() view returns (uint256)',
  'function lastRevert() view returns (bytes)',
])

let bytecode: Hex | undefined

export function hostileTokenBytecode(): Hex {
  if (bytecode) return bytecode
  bytecode = compileInline('HostileToken.sol', SOURCE).HostileToken!
  return bytecode
}
