import type { Address, Hex } from 'viem'

/**
 * ERC-4337 contracts at the addresses every tool expects (viem's entryPoint08Address, permissionless's
 * default 7702 delegate). On local chains they are deployed through the deterministic CREATE2
 * deployer that anvil pre-installs, with the salts the public deployments used, so the same
 * bytecode lands at the same address; `anvil_setCode` would not do (immutables differ).
 */
export const DETERMINISTIC_DEPLOYER: Address = '0x4e59b44847b379578588920ca78fbf26c0b4956c'

export const ENTRY_POINT_08: Address = '0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108'
export const ENTRY_POINT_08_SALT: Hex = '0x0a59dbff790c23c976a548690c27297883cc66b4c67024f9117b0238995e35e9'

/** EntryPoint v0.8's Simple7702Account: the code an agent's EOA delegates to with EIP-7702. */
export const SIMPLE_7702_ACCOUNT: Address = '0xe6Cae83BdE06E4c305530e199D7217f42808555B'
export const SIMPLE_7702_ACCOUNT_SALT: Hex = '0x0000000000000000000000000000000000000000000000000000000000000000'
