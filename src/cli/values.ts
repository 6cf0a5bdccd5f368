import { InvalidArgumentError, Option } from 'commander'

/**
 * Value lists the flags accept, kept here so --help, validation and the shell completions share
 * them. Plain lists (the network registry is not loaded for --help); values.test.ts checks them
 * against src/networks/registry.ts.
 */
export const localNetworks = ['local-base', 'local-radius', 'local-solana'] as const
export const tokenSymbols = ['USDC', 'PUSD', 'XUSD', 'ETH', 'SOL'] as const
export const profiles = ['local', 'testnet', 'mainnet'] as const
export const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const

/** An option with fixed choices that accepts any letter case (usdc = USDC) and stores the canonical one. */
export function choiceOption(flags: string, description: string, choices: readonly string[]): Option {
  return new Option(flags, description).choices(choices).argParser((v: string) => {
    const hit = choices.find((c) => c.toLowerCase() === v.toLowerCase())
    if (!hit) throw new InvalidArgumentError(`Allowed choices are ${choices.join(', ')}.`)
    return hit
  })
}
