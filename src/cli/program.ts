import { Command, Option } from 'commander'
import * as agentCreate from './commands/agent/create.js'
import * as agentFreeze from './commands/agent/freeze.js'
import * as agentKeyCreate from './commands/agent/key-create.js'
import * as agentKeyRevoke from './commands/agent/key-revoke.js'
import * as agentLimits from './commands/agent/limits.js'
import * as agentList from './commands/agent/list.js'
import * as agentLogin from './commands/agent/login.js'
import * as agentPolicy from './commands/agent/policy.js'
import * as agentShow from './commands/agent/show.js'
import * as agentUnfreeze from './commands/agent/unfreeze.js'
import * as alertsAdd from './commands/alerts/add.js'
import * as alertsHistory from './commands/alerts/history.js'
import * as alertsList from './commands/alerts/list.js'
import * as alertsRemove from './commands/alerts/remove.js'
import * as approvalsApprove from './commands/approvals/approve.js'
import * as approvalsDeny from './commands/approvals/deny.js'
import * as approvalsList from './commands/approvals/list.js'
import * as attestor from './commands/attestor.js'
import * as userLogin from './commands/auth/user-login.js'
import * as backup from './commands/backup.js'
import * as balance from './commands/balance.js'
import * as chains from './commands/chains.js'
import * as channelsList from './commands/channels/list.js'
import * as channelsRefund from './commands/channels/refund.js'
import * as channelsWithdraw from './commands/channels/withdraw.js'
import * as completion from './commands/completion.js'
import * as configGet from './commands/config/get.js'
import * as configPath from './commands/config/path.js'
import * as configSet from './commands/config/set.js'
import * as deploy from './commands/deploy.js'
import * as discover from './commands/discover.js'
import * as endpointCreate from './commands/endpoint/create.js'
import * as endpointDelete from './commands/endpoint/delete.js'
import * as endpointList from './commands/endpoint/list.js'
import * as endpointRefund from './commands/endpoint/refund.js'
import * as endpointUpdate from './commands/endpoint/update.js'
import * as faucet from './commands/faucet.js'
import * as keysCreate from './commands/keys/create.js'
import * as keysDeactivate from './commands/keys/deactivate.js'
import * as keysDelete from './commands/keys/delete.js'
import * as keysList from './commands/keys/list.js'
import * as keysOperatorToken from './commands/keys/operator-token.js'
import * as keysReseal from './commands/keys/reseal.js'
import * as logout from './commands/logout.js'
import * as manifest from './commands/manifest.js'
import * as mcp from './commands/mcp.js'
import * as openapi from './commands/openapi.js'
import * as pay from './commands/pay.js'
import * as payments from './commands/payments.js'
import * as receiptVerify from './commands/receipt/verify.js'
import * as report from './commands/report.js'
import * as restore from './commands/restore.js'
import * as send from './commands/send.js'
import * as serve from './commands/serve.js'
import * as skill from './commands/skill.js'
import * as solverHeartbeat from './commands/solver/heartbeat.js'
import * as solverPause from './commands/solver/pause.js'
import * as solverResume from './commands/solver/resume.js'
import * as status from './commands/status.js'
import * as swap from './commands/swap.js'
import * as userCreate from './commands/user/create.js'
import * as userLimits from './commands/user/limits.js'
import * as userPolicy from './commands/user/policy.js'
import * as userWhoami from './commands/user/whoami.js'
import * as whoami from './commands/whoami.js'
import * as xchainBuild from './commands/xchain/build.js'
import * as xchainStatus from './commands/xchain/status.js'
import { type CliContext, type CliIo, createContext, type GlobalOptions } from './context.js'
import { usageError } from './errors.js'

export const outputFormats = ['text', 'json', 'csv'] as const
/** The commands that print a table, and so take `--output csv`. */
export const CSV_COMMANDS: ReadonlySet<string> = new Set(['payments', 'report'])

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
  program.addCommand(openapi.define(ctx))
  program.addCommand(backup.define(ctx))
  program.addCommand(restore.define(ctx))
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
      .addCommand(keysOperatorToken.define(ctx))
      .addCommand(keysReseal.define(ctx)),
  )
  program.addCommand(
    new Command('solver')
      .description('the cross-chain solver (operator): pause, resume, heartbeat')
      .addCommand(solverPause.define(ctx))
      .addCommand(solverResume.define(ctx))
      .addCommand(solverHeartbeat.define(ctx)),
  )
  program.addCommand(attestor.define(ctx))
  program.addCommand(
    new Command('xchain')
      .description('cross-chain orders between Base and Solana: build one for a user to sign, follow its status')
      .addCommand(xchainBuild.define(ctx))
      .addCommand(xchainStatus.define(ctx)),
  )
  program.addCommand(
    new Command('config')
      .description('daemon settings in the per-user config file (mode 0600)')
      .addCommand(configPath.define(ctx))
      .addCommand(configGet.define(ctx))
      .addCommand(configSet.define(ctx)),
  )
  program.addCommand(
    new Command('auth')
      .description('log in to the agent payments platform')
      .addCommand(new Command('user').description('the user account').addCommand(userLogin.define(ctx))),
  )
  program.addCommand(
    new Command('user')
      .description('the user account of the payments platform')
      .addCommand(userWhoami.define(ctx))
      .addCommand(userCreate.define(ctx))
      .addCommand(userLimits.define(ctx))
      .addCommand(userPolicy.define(ctx)),
  )
  program.addCommand(
    new Command('agent')
      .description('agents of the payments platform')
      .addCommand(agentLogin.define(ctx))
      .addCommand(agentList.define(ctx))
      .addCommand(agentCreate.define(ctx))
      .addCommand(agentShow.define(ctx))
      .addCommand(agentLimits.define(ctx))
      .addCommand(agentPolicy.define(ctx))
      .addCommand(agentFreeze.define(ctx))
      .addCommand(agentUnfreeze.define(ctx))
      .addCommand(
        new Command('key')
          .description('agent API keys')
          .addCommand(agentKeyCreate.define(ctx))
          .addCommand(agentKeyRevoke.define(ctx)),
      ),
  )
  program.addCommand(
    new Command('approvals')
      .description('pays and sends of your agents above their approval threshold, held until you approve or deny them')
      .addCommand(approvalsList.define(ctx), { isDefault: true })
      .addCommand(approvalsApprove.define(ctx))
      .addCommand(approvalsDeny.define(ctx)),
  )
  program.addCommand(
    new Command('alerts')
      .description(
        "rules that tell you when your agents' spending crosses a line: " +
          'budget at N%, payment above X, new payee, refusals, spend rate',
      )
      .addCommand(alertsList.define(ctx), { isDefault: true })
      .addCommand(alertsAdd.define(ctx))
      .addCommand(alertsRemove.define(ctx))
      .addCommand(alertsHistory.define(ctx)),
  )
  program.addCommand(whoami.define(ctx))
  program.addCommand(balance.define(ctx))
  program.addCommand(pay.define(ctx))
  program.addCommand(send.define(ctx))
  program.addCommand(swap.define(ctx))
  program.addCommand(payments.define(ctx))
  program.addCommand(report.define(ctx))
  program.addCommand(
    new Command('channels')
      .description(
        "the agent's x402 batch-settlement channels: list them, " +
          'refund what is unspent, or withdraw it without the seller',
      )
      .addCommand(channelsList.define(ctx))
      .addCommand(channelsRefund.define(ctx))
      .addCommand(channelsWithdraw.define(ctx)),
  )
  program.addCommand(discover.define(ctx))
  program.addCommand(manifest.define(ctx))
  program.addCommand(
    new Command('receipt')
      .description('signed payment receipts: verify one offline')
      .addCommand(receiptVerify.define(ctx)),
  )
  program.addCommand(
    new Command('endpoint')
      .description('seller endpoints of the payments platform')
      .addCommand(endpointList.define(ctx))
      .addCommand(endpointCreate.define(ctx))
      .addCommand(endpointUpdate.define(ctx))
      .addCommand(endpointDelete.define(ctx))
      .addCommand(endpointRefund.define(ctx)),
  )
  program.addCommand(mcp.define(ctx))
  program.addCommand(skill.define(ctx))
  program.addCommand(logout.define(ctx))
  program.addCommand(completion.define(ctx, () => program))
  // Refused before any action runs: a pay or send must not happen and then fail to print.
  program.hook('preAction', (_, action) => {
    if (program.opts<GlobalOptions>().output === 'csv' && !CSV_COMMANDS.has(action.name())) {
      throw usageError(
        `--output csv is for ${[...CSV_COMMANDS].map((c) => `parx ${c}`).join(' and ')}; ` +
          `use --output json or text with parx ${action.name()}`,
      )
    }
  })
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
