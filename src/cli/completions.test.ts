import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { networks, TOKEN_A, TOKEN_B, USDC } from '../networks/registry.js'
import { completionFiles, completionsDir } from './commands/completion.js'
import { completions } from './completions.js'
import { buildProgram } from './program.js'
import { localNetworks, tokenSymbols } from './values.js'

const program = () => buildProgram({ stdout: () => {}, stderr: () => {}, env: {} })

/** What bash offers for `parx <line>` (the last word is the one being completed), by running the script. */
function bashComplete(line: string): string[] {
  const words = ['parx', ...line.split(' ')]
  const script = `source ${join(completionsDir(), 'parx.bash')}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _parx; printf '%s\\n' "\${COMPREPLY[@]}"`
  return execFileSync('bash', ['-c', script], { encoding: 'utf8' }).split('\n').filter(Boolean)
}

describe('shell completions', () => {
  it('the committed scripts match the command tree (run npm run build:completions when this fails)', () => {
    const scripts = completions(program())
    for (const [shell, file] of Object.entries(completionFiles)) {
      expect(
        readFileSync(join(completionsDir(), file), 'utf8'),
        `${file} is stale: run npm run build:completions`,
      ).toBe(scripts[shell as keyof typeof scripts])
    }
  })

  it('know every command', () => {
    const { bash, fish, zsh } = completions(program())
    for (const cmd of ['serve', 'faucet', 'keys', 'operator-token', 'status', 'completion', 'logout', 'login']) {
      expect(bash).toContain(cmd)
      expect(fish).toContain(cmd)
      expect(zsh).toContain(cmd)
    }
  })

  it('complete commands, flags and values in bash', () => {
    expect(bashComplete('ke')).toEqual(['keys'])
    expect(bashComplete('keys c')).toEqual(['create'])
    expect(bashComplete('faucet --net')).toEqual(['--network'])
    expect(bashComplete('faucet --network ')).toEqual([...localNetworks])
    expect(bashComplete('faucet --token P')).toEqual(['PUSD'])
    expect(bashComplete('status -o ')).toEqual(['text', 'json', 'csv'])
    expect(bashComplete('serve --profile t')).toEqual(['testnet'])
  })

  it('value lists agree with the network registry', () => {
    expect([...localNetworks]).toEqual(
      Object.values(networks)
        .filter((n) => n.kind === 'local')
        .map((n) => n.key),
    )
    for (const t of [TOKEN_A, TOKEN_B, USDC]) expect(tokenSymbols).toContain(t)
  })
})
