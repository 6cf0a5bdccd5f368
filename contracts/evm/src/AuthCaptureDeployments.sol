// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

// The x402 `auth-capture` escrow stack's canonical addresses (base/commerce-payments' CREATE2 sets,
// as @x402/evm 2.27.0 signs for them). Every token authorization a client signs commits to the
// escrow's address and the chain, so the embedded chains place this code at exactly these
// addresses with `anvil_setCode`; what the reference sets in constructors is a constant here.

address constant AUTH_CAPTURE_ESCROW_V1_0 = 0xBdEA0D1bcC5966192B070Fdf62aB4EF5b4420cff;
address constant AUTH_CAPTURE_ESCROW_V1_1 = 0xf96815976523E00e65Be8f34cA5e64b4f41EB19c;

/// @dev Where the reference escrow's constructor puts its token store implementation: its first
/// CREATE (nonce 1). Token stores are clones of it at CREATE2 addresses derived from it, so with it
/// here `getTokenStore(operator)` answers the address the public deployment answers.
address constant AUTH_CAPTURE_TOKEN_STORE_V1_0 = 0xEd411C46508C2acf1D387754Df9cc98D0ef80D08;
address constant AUTH_CAPTURE_TOKEN_STORE_V1_1 = 0xe4be44B1505d29ae640748b4cce530ece6DcD450;

address constant AUTH_CAPTURE_MULTICALL3 = 0xcA11bde05977b3631167028862bE2a173976CA11;
address constant AUTH_CAPTURE_PERMIT2 = 0x000000000022D473030F116dDEE9F6B43aC78BA3;
