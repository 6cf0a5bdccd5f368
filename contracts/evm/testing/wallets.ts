import type { Hex } from 'viem'

/**
 * Stand-in smart wallets, as raw runtime code installed with anvil_setCode: one answers every
 * `isValidSignature` with the ERC-1271 magic value 0x1626ba7e, the other with zero. Enough to prove
 * the contracts ask the wallet instead of running ecrecover when the signer has code.
 */
export const ACCEPTS_ALL: Hex = '0x631626ba7e60e01b60005260206000f3'
export const REJECTS_ALL: Hex = '0x60206000f3'
