// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title Multicall3-compatible batcher.
/// @notice Same ABI and selectors as the canonical Multicall3, because viem's `multicall` and the
/// reference x402 facilitator call it at 0xcA11bde05977b3631167028862bE2a173976CA11. The embedded
/// chains place this runtime code there with `anvil_setCode`, which skips the constructor: hence
/// no constructor, no immutables and no storage.
contract Multicall3 {
    struct Call {
        address target;
        bytes callData;
    }

    struct Call3 {
        address target;
        bool allowFailure;
        bytes callData;
    }

    struct Call3Value {
        address target;
        bool allowFailure;
        uint256 value;
        bytes callData;
    }

    struct Result {
        bool success;
        bytes returnData;
    }

    /// @notice Every call must succeed; returns the raw return data.
    function aggregate(Call[] calldata calls) public payable returns (uint256 blockNumber, bytes[] memory returnData) {
        blockNumber = block.number;
        returnData = new bytes[](calls.length);
        for (uint256 i; i < calls.length; ++i) {
            returnData[i] = _run(calls[i].target, 0, calls[i].callData, false).returnData;
        }
    }

    function tryAggregate(bool requireSuccess, Call[] calldata calls)
        public
        payable
        returns (Result[] memory returnData)
    {
        returnData = new Result[](calls.length);
        for (uint256 i; i < calls.length; ++i) {
            returnData[i] = _run(calls[i].target, 0, calls[i].callData, !requireSuccess);
        }
    }

    function tryBlockAndAggregate(bool requireSuccess, Call[] calldata calls)
        public
        payable
        returns (uint256 blockNumber, bytes32 blockHash, Result[] memory returnData)
    {
        blockNumber = block.number;
        blockHash = blockhash(block.number);
        returnData = tryAggregate(requireSuccess, calls);
    }

    function blockAndAggregate(Call[] calldata calls)
        public
        payable
        returns (uint256 blockNumber, bytes32 blockHash, Result[] memory returnData)
    {
        return tryBlockAndAggregate(true, calls);
    }

    /// @notice The form viem uses: failure is allowed or not per call.
    function aggregate3(Call3[] calldata calls) public payable returns (Result[] memory returnData) {
        returnData = new Result[](calls.length);
        for (uint256 i; i < calls.length; ++i) {
            returnData[i] = _run(calls[i].target, 0, calls[i].callData, calls[i].allowFailure);
        }
    }

    /// @notice Like aggregate3 with ETH per call; the values must add up to exactly msg.value so no
    /// ETH is left stranded in this contract.
    function aggregate3Value(Call3Value[] calldata calls) public payable returns (Result[] memory returnData) {
        returnData = new Result[](calls.length);
        uint256 total;
        for (uint256 i; i < calls.length; ++i) {
            total += calls[i].value;
            returnData[i] = _run(calls[i].target, calls[i].value, calls[i].callData, calls[i].allowFailure);
        }
        require(total == msg.value, "Multicall3: value mismatch");
    }

    function getBlockHash(uint256 blockNumber) public view returns (bytes32 blockHash) {
        return blockhash(blockNumber);
    }

    function getBlockNumber() public view returns (uint256 blockNumber) {
        return block.number;
    }

    function getCurrentBlockCoinbase() public view returns (address coinbase) {
        return block.coinbase;
    }

    /// @notice Since the merge the old DIFFICULTY opcode yields PREVRANDAO.
    function getCurrentBlockDifficulty() public view returns (uint256 difficulty) {
        return block.prevrandao;
    }

    function getCurrentBlockGasLimit() public view returns (uint256 gaslimit) {
        return block.gaslimit;
    }

    function getCurrentBlockTimestamp() public view returns (uint256 timestamp) {
        return block.timestamp;
    }

    function getEthBalance(address addr) public view returns (uint256 balance) {
        return addr.balance;
    }

    function getLastBlockHash() public view returns (bytes32 blockHash) {
        return blockhash(block.number - 1);
    }

    function getBasefee() public view returns (uint256 basefee) {
        return block.basefee;
    }

    function getChainId() public view returns (uint256 chainid) {
        return block.chainid;
    }

    function _run(address target, uint256 value, bytes calldata callData, bool allowFailure)
        private
        returns (Result memory result)
    {
        (result.success, result.returnData) = target.call{value: value}(callData);
        require(result.success || allowFailure, "Multicall3: call failed");
    }
}
