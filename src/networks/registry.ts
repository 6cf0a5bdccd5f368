/**
 * The network registry: data, not code paths. Routes, the worker and the CLI look networks and
 * tokens up here; nothing else spells a symbol, a chain id or a decimal count.
 */
export type Family = 'evm' | 'solana'
export type NetworkKind = 'local' | 'testnet' | 'mainnet'
export type Feature = 'swap' | 'xchain' | 'x402' | 'aa' | 'direct'

export type TokenSpec = {
  symbol: string
  decimals: number
  /** EIP-2612 domain (EVM). Each token's differs, so a permit for one never passes another. */
  permitDomain?: { name: string; version: string }
  /** The token also implements EIP-3009 transferWithAuthorization (USDC). */
  eip3009?: boolean
  /** Address (EVM) or mint (Solana) on real networks; filled from the deployment on local ones. */
  address?: string
}

export type NetworkSpec = {
  key: string
  kind: NetworkKind
  family: Family
  /** CAIP-2 id, used by x402 v2. */
  caip2: string
  /** The x402 v1 network name. */
  legacyName: string
  chainId?: number
  /** 'embedded' on the local profile: the daemon runs the chain itself. */
  rpc: 'embedded' | 'config'
  tokens: TokenSpec[]
  features: Feature[]
}

/** The service's own token (TOKEN_A), a partner stable (TOKEN_B), and the dollar exit. */
export const TOKEN_A = 'PUSD'
export const TOKEN_B = 'XUSD'
export const USDC = 'USDC'

const usdcDomain = { name: 'USD Coin', version: '2' }
const tokenADomain = { name: 'Parx USD', version: '1' }
const tokenBDomain = { name: 'XUSD Stablecoin', version: '3' }

const evmTokens = (tokenADecimals: number, withB = true): TokenSpec[] => [
  { symbol: USDC, decimals: 6, permitDomain: usdcDomain, eip3009: true },
  { symbol: TOKEN_A, decimals: tokenADecimals, permitDomain: tokenADomain },
  ...(withB ? [{ symbol: TOKEN_B, decimals: 6, permitDomain: tokenBDomain }] : []),
]
/**
 * Tempo's stablecoins are TIP-20 tokens (6 decimals, fees paid in them). Only TOKEN_A is offered
 * there: the platform's direct sends, not swaps or x402, so no permit domain is assumed.
 */
const tempoTokens = (): TokenSpec[] => [{ symbol: TOKEN_A, decimals: 6 }]
const solTokens = (): TokenSpec[] => [
  { symbol: USDC, decimals: 6 },
  { symbol: TOKEN_A, decimals: 9 },
  { symbol: TOKEN_B, decimals: 6 },
]

/** Local chain ids are our own, never a real chain's. */
export const LOCAL_BASE_CHAIN_ID = 8453_0017
export const LOCAL_RADIUS_CHAIN_ID = 72348_7017
/** Our embedded cluster's genesis id (base58, as CAIP-2 wants the first 32 characters). */
export const LOCAL_SOLANA_GENESIS = 'ParxLoca1So1anaC1uster11111111111'.slice(0, 32)

export const networks: Record<string, NetworkSpec> = {
  'local-base': {
    key: 'local-base',
    kind: 'local',
    family: 'evm',
    chainId: LOCAL_BASE_CHAIN_ID,
    caip2: `eip155:${LOCAL_BASE_CHAIN_ID}`,
    legacyName: 'local-base',
    rpc: 'embedded',
    tokens: evmTokens(18),
    features: ['swap', 'xchain', 'x402', 'aa'],
  },
  'local-radius': {
    key: 'local-radius',
    kind: 'local',
    family: 'evm',
    chainId: LOCAL_RADIUS_CHAIN_ID,
    caip2: `eip155:${LOCAL_RADIUS_CHAIN_ID}`,
    legacyName: 'local-radius',
    rpc: 'embedded',
    tokens: evmTokens(6, false),
    features: ['x402', 'direct'],
  },
  'local-solana': {
    key: 'local-solana',
    kind: 'local',
    family: 'solana',
    caip2: `solana:${LOCAL_SOLANA_GENESIS}`,
    legacyName: 'local-solana',
    rpc: 'embedded',
    tokens: solTokens(),
    features: ['swap', 'xchain', 'x402'],
  },
  'base-sepolia': {
    key: 'base-sepolia',
    kind: 'testnet',
    family: 'evm',
    chainId: 84532,
    caip2: 'eip155:84532',
    legacyName: 'base-sepolia',
    rpc: 'config',
    tokens: evmTokens(6),
    features: ['swap', 'xchain', 'x402', 'aa'],
  },
  'radius-testnet': {
    key: 'radius-testnet',
    kind: 'testnet',
    family: 'evm',
    chainId: 72344,
    caip2: 'eip155:72344',
    legacyName: 'radius-testnet',
    rpc: 'config',
    tokens: evmTokens(6, false),
    features: ['x402', 'direct'],
  },
  'solana-devnet': {
    key: 'solana-devnet',
    kind: 'testnet',
    family: 'solana',
    caip2: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
    legacyName: 'solana-devnet',
    rpc: 'config',
    tokens: solTokens(),
    features: ['swap', 'xchain', 'x402'],
  },
  base: {
    key: 'base',
    kind: 'mainnet',
    family: 'evm',
    chainId: 8453,
    caip2: 'eip155:8453',
    legacyName: 'base',
    rpc: 'config',
    tokens: evmTokens(18),
    features: ['swap', 'xchain', 'x402', 'aa'],
  },
  radius: {
    key: 'radius',
    kind: 'mainnet',
    family: 'evm',
    chainId: 723487,
    caip2: 'eip155:723487',
    legacyName: 'radius',
    rpc: 'config',
    tokens: evmTokens(6, false),
    features: ['x402', 'direct'],
  },
  // Direct-send networks of the agent platform only; no profile serves them until their RPC URL is configured.
  'tempo-testnet': {
    key: 'tempo-testnet',
    kind: 'testnet',
    family: 'evm',
    chainId: 42431,
    caip2: 'eip155:42431',
    legacyName: 'tempo-testnet',
    rpc: 'config',
    tokens: tempoTokens(),
    features: ['direct'],
  },
  tempo: {
    key: 'tempo',
    kind: 'mainnet',
    family: 'evm',
    chainId: 4217,
    caip2: 'eip155:4217',
    legacyName: 'tempo',
    rpc: 'config',
    tokens: tempoTokens(),
    features: ['direct'],
  },
  solana: {
    key: 'solana',
    kind: 'mainnet',
    family: 'solana',
    caip2: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
    legacyName: 'solana',
    rpc: 'config',
    tokens: solTokens(),
    features: ['swap', 'xchain', 'x402'],
  },
}

export type Profile = 'local' | 'testnet' | 'mainnet'

/** Per profile: the networks it serves and which of them plays the Base / Solana role. */
export const profiles: Record<Profile, { networks: string[]; base: string; solana: string; radius: string }> = {
  local: {
    networks: ['local-base', 'local-radius', 'local-solana'],
    base: 'local-base',
    solana: 'local-solana',
    radius: 'local-radius',
  },
  testnet: {
    networks: ['base-sepolia', 'radius-testnet', 'solana-devnet'],
    base: 'base-sepolia',
    solana: 'solana-devnet',
    radius: 'radius-testnet',
  },
  mainnet: { networks: ['base', 'radius', 'solana'], base: 'base', solana: 'solana', radius: 'radius' },
}

export function tokenSpec(networkKey: string, symbol: string): TokenSpec | undefined {
  return networks[networkKey]?.tokens.find((t) => t.symbol === symbol.toUpperCase())
}
