// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @dev The slice of a Uniswap V2 pair the router uses; declared here so the router does not
/// depend on the 0.5-era v2-core sources.
interface IUniswapV2PairMinimal {
    function token0() external view returns (address);
    function token1() external view returns (address);
    function getReserves() external view returns (uint112 reserve0, uint112 reserve1, uint32 blockTimestampLast);
    function swap(uint256 amount0Out, uint256 amount1Out, address to, bytes calldata data) external;
}
