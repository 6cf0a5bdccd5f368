import { Command, Option } from 'commander'
import { readFileSync } from 'node:fs'
import * as chains from './commands/chains.js'
import * as completion from './commands/completion.js'
import * as deploy from './commands/deploy.js'
import * as configGet from './commands/config/get.js'
import * as configPath from './commands/config/path.js'
import * as configSet from './commands/config/set.js'
import * as faucet from './commands/faucet.js'
import * as keysCreate from './commands/keys/create.js'
import * as keysDeactivate from './commands/keys/deactivate.js'
import * as keysDelete from './commands/keys/delete.js'
import * as keysList from './commands/keys/list.js'
import * as keysOperatorToken from './commands/keys/operator-token.js'
import * as serve from './commands/serve.js'
import * as status from './commands/status.js'
import { defaultApiUrl, type CliContext } from './context.js'

const version = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version

/** The whole command tree. Each command lives in its own file under commands/. */
export function buildProgram(io: Pick<CliContext, 'stdout' | 'stderr' | 'env'>): Command {
  const program = new Command('parx')
    .description('stablecoin swaps, cross-chain intents, an x402 facilitator and agent payments, on your machine')
    .version(version, '-V, --version')
    .addOption(new Option('-o, --output <format>', 'output format').choices(['text', 'json']).default('text'))
    .option('--api-url <url>', 'daemon URL (default PARX_API_URL or http://127.0.0.1:8420)')
    .showSuggestionAfterError()

  const ctx = (): CliContext => {
    const g = program.opts<{ output: 'text' | 'json'; apiUrl?: string }>()
    return { ...io, output: g.output, apiUrl: g.apiUrl ?? defaultApiUrl(io.env) }
  }

  program.addCommand(serve.define(ctx))
  program.addCommand(status.define(ctx))
  program.addCommand(chains.define(ctx))
  program.addCommand(deploy.define(ctx))
  program.addCommand(faucet.define(ctx))
  program.addCommand(
    new Command('keys')
      .description('partner API keys and the operator token')
      .addCommand(keysCreate.define(ctx))
      .addCommand(keysList.define(ctx))
      .addCommand(keysDeactivate.define(ctx))
      .addCommand(keysDelete.define(ctx))
      .addCommand(keysOperatorToken.define(ctx)),
  )
  program.addCommand(
    new Command('config')
      .description('daemon settings in the per-user config file (mode 0600)')
      .addCommand(configPath.define(ctx))
      .addCommand(configGet.define(ctx))
      .addCommand(configSet.define(ctx)),
  )
  program.addCommand(completion.define(ctx, () => program))
  // addCommand does not pass settings down: give every command our output and error handling.
  const inherit = (cmd: Command) => {
    cmd.exitOverride().configureOutput({ writeOut: (s) => io.stdout(s.trimEnd()), writeErr: (s) => io.stderr(s.trimEnd()) })
    cmd.commands.forEach(inherit)
  }
  inherit(program)
  return program
}
