import { Command, Option } from 'commander'
import * as agentLogin from './commands/agent/login.js'
import * as userLogin from './commands/auth/user-login.js'
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
import * as logout from './commands/logout.js'
import * as serve from './commands/serve.js'
import * as status from './commands/status.js'
import { createContext, type CliContext, type CliIo, type GlobalOptions } from './context.js'

export const outputFormats = ['text', 'json'] as const

/**
 * The whole command tree. Each command lives in its own file under commands/; those files import
 * only commander and types at the top and load what they use inside `run`, so building this tree
 * (all that --help needs) loads no HTTP client, chain library, config store or daemon.
 */
export function buildProgram(io: CliIo, opts: { version?: string; json?: boolean } = {}): Command {
  const version = opts.version ?? '0.0.0'
  const program = new Command('parx')
    .description('stablecoin swaps, cross-chain intents, an x402 facilitator and agent payments, on your machine')
    .version(version, '-V, --version')
    .addOption(new Option('-o, --output <format>', 'output format').choices(outputFormats).default('text'))
    .option('--api-url <url>', 'daemon URL (default PARX_API_URL, the running `parx serve`, or http://127.0.0.1:8420)')
    .option('--no-color', 'no colours (NO_COLOR=1 does the same)')
    .showSuggestionAfterError()

  const ctx = (): CliContext => createContext(io, program.opts<GlobalOptions>())

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
  program.addCommand(
    new Command('auth').description('log in to the agent payments platform').addCommand(new Command('user').description('the user account').addCommand(userLogin.define(ctx))),
  )
  program.addCommand(new Command('agent').description('agents of the payments platform').addCommand(agentLogin.define(ctx)))
  program.addCommand(logout.define(ctx))
  program.addCommand(completion.define(ctx, () => program))
  // addCommand does not pass settings down: give every command our output and error handling.
  // With --output json, commander's own messages are left out: main prints the error as JSON.
  const inherit = (cmd: Command) => {
    cmd.exitOverride().configureOutput({
      writeOut: (s) => {
        if (!(opts.json && s === `${version}\n`)) io.stdout(s.trimEnd())
      },
      writeErr: (s) => {
        if (!opts.json) io.stderr(s.trimEnd())
      },
    })
    cmd.commands.forEach(inherit)
  }
  inherit(program)
  return program
}
