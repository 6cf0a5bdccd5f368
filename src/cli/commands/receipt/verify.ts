import { Command } from 'commander'
import type { SignedReceipt } from '../../../sdk/platform/receipts.js'
import { type CliContext, emit } from '../../context.js'
import { CliError, usageError } from '../../errors.js'

export type VerifyOptions = { file: string; signer?: string }
export type VerifiedReceipt = {
  paymentId: string
  valid: boolean
  signer: string
  recovered: string | null
  pinned: boolean
  amount: string
  symbol: string
  payTo: string
  host: string
  transaction: string
}
export type VerifyResult = { valid: boolean; receipts: VerifiedReceipt[] }
export type VerifyDeps = {
  ctx: CliContext
  stdin?: () => Promise<Buffer>
  readFile?: (path: string) => Promise<Buffer>
}

/**
 * `parx receipt verify <file|->`: checks receipts offline (no daemon, no network). Each one's
 * EIP-712 signature must recover to `--signer` (pin it from the manifest's `receipts.signer`), or
 * without it to the signer the receipt names, with a warning: anyone can sign a receipt naming
 * their own key. Any changed field fails (RECEIPT_INVALID, exit 10); input that is not a receipt
 * is RECEIPT_MALFORMED (exit 10). Reads one receipt, a JSON array, or JSON lines
 * (`parx payments --receipts`); all must verify.
 */
export async function run(opts: VerifyOptions, deps: VerifyDeps): Promise<VerifyResult> {
  const [{ parseReceipts, verifyReceipt }, { isAddress, getAddress }, { fromBaseUnits }] = await Promise.all([
    import('../../../sdk/platform/receipt-verify.js'),
    import('viem'),
    import('../../../sdk/units.js'),
  ])
  let signer: `0x${string}` | undefined
  if (opts.signer !== undefined) {
    if (!isAddress(opts.signer.trim(), { strict: false }))
      throw usageError(`--signer '${opts.signer}' is not an address (0x and 40 hex digits)`)
    signer = getAddress(opts.signer.trim())
  }
  const text = (await read(opts.file, deps)).toString('utf8')
  let receipts: SignedReceipt[]
  try {
    receipts = parseReceipts(text)
  } catch (e) {
    throw new CliError(
      'RECEIPT_MALFORMED',
      `${opts.file === '-' ? 'standard input' : opts.file}: not a parx receipt (${(e as Error).message})`,
    )
  }
  const out: VerifiedReceipt[] = []
  for (const r of receipts) {
    const v = await verifyReceipt(r, { signer })
    const m = r.message
    out.push({
      paymentId: m.paymentId,
      valid: v.valid,
      signer: v.expected,
      recovered: v.recovered,
      pinned: v.pinned,
      amount: fromBaseUnits(BigInt(m.amount), m.decimals),
      symbol: m.symbol,
      payTo: m.payTo,
      host: m.host,
      transaction: m.transaction,
    })
  }
  const bad = out.filter((r) => !r.valid)
  if (bad.length) {
    const first = bad[0]!
    throw new CliError(
      'RECEIPT_INVALID',
      `${bad.length} of ${out.length} receipt${out.length === 1 ? '' : 's'} did not verify: payment ` +
        `${first.paymentId} is signed by ${first.recovered ?? 'no one (unreadable signature)'}, not ` +
        `${first.signer}${first.pinned ? '' : ' (the signer it names)'}: a field was changed or another key signed it`,
    )
  }
  if (!signer)
    deps.ctx.stderr(
      deps.ctx.errColor.yellow(
        `warning: checked against the signer the receipt names (${out[0]!.signer}); pin ` +
          `the platform's with --signer <address> from \`parx manifest\` (receipts.signer)`,
      ),
    )
  const result = { valid: true, receipts: out }
  emit(deps.ctx, result, () =>
    out.map(
      (r) =>
        `valid  ${r.paymentId}  ${r.amount} ${r.symbol} to ${r.payTo} ` +
        `(${r.host})  ${r.transaction}  signed by ${r.signer}`,
    ),
  )
  return result
}

async function read(file: string, deps: VerifyDeps): Promise<Buffer> {
  if (file === '-') return (deps.stdin ?? readStdin)()
  try {
    return await (deps.readFile ?? (async (p: string) => (await import('node:fs/promises')).readFile(p)))(file)
  } catch (e) {
    throw usageError(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`)
  }
}

async function readStdin(): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const c of process.stdin) chunks.push(c as Buffer)
  return Buffer.concat(chunks)
}

export function define(ctx: () => CliContext): Command {
  return new Command('verify')
    .description(
      'check signed payment receipts offline: the signature recovers ' +
        'to the platform signer, and no field was changed (exit 10 if not)',
    )
    .argument('<file>', 'a receipt, a JSON array or JSON lines (`parx payments --receipts`); - for standard input')
    .option(
      '--signer <address>',
      "the platform's receipt signer, from `parx manifest` (receipts.signer); " +
        'default: the signer the receipt names, with a warning',
    )
    .action(
      async (file: string, opts: { signer?: string }) =>
        void (await run({ file, signer: opts.signer }, { ctx: ctx() })),
    )
}
