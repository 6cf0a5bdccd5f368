import { randomBytes } from 'node:crypto'
import bs58 from 'bs58'
import { type Address, getAddress } from 'viem'
import { openInstruction } from '../../../../contracts/solana/client.js'
import { chainRef, evmParty, type SolOrder, solOrderId } from '../../../../contracts/xchain/statement.js'
import { BaseError } from '../../../../src/errors/index.js'
import { signMessage } from '../../../../src/sdk/solana/sign.js'
import { rescaleExact } from '../../../../src/sdk/swap/amounts.js'
import { fromBaseUnits, toBaseUnits } from '../../../../src/sdk/units.js'
import type { SolOriginBuildRequest, SolOriginBuilt } from '../../../../src/sdk/xchain/wire.js'
import { compileLegacyMessage, legacyWire } from '../../../chains/solana/legacy-message.js'
import { ataOf, chainTokens, rpc, tokenAmount, walletKey } from '../../../sol/accounts.js'
import { ui } from '../../../swap/inventory.js'
import { usdToUnits } from '../../../swap/limits.js'
import type { NewOrder } from '../../order-store.js'
import { solanaNow } from './chain-reads.js'
import type { SolOriginDeps } from './deps.js'
import { encodeSolOrder } from './order-data.js'

/**
 * POST /api/xchain/sol-origin/open/build: the lock the user signs. The solver is the fee payer
 * and rent payer and has already signed, so a wallet with no SOL can open (as in Solana swaps).
 * Par: the output is the input rescaled to the Base token's decimals, exactly.
 */
export async function prepareSolOrigin(d: SolOriginDeps, req: SolOriginBuildRequest) {
  const program = d.solana.programs.originSettler
  if (!program)
    throw new BaseError(
      'FLOW_DISABLED',
      `origin_settler is not deployed on ${d.solana.key}: the sol-origin rail is off`,
    )
  const user = walletKey(req.user, 'user', d.solver.publicKey)
  const tokens = await chainTokens(d.solana)
  const input = tokens[req.inSym]
  if (!input)
    throw new BaseError(
      'UNKNOWN_TOKEN',
      `inSym ${req.inSym} is not a token on ${d.solana.key}; use one of ${Object.keys(tokens).join(', ')}`,
    )
  const output = d.base.tokens[req.outSym]
  if (!output)
    throw new BaseError(
      'UNKNOWN_TOKEN',
      `outSym ${req.outSym} is not a token on ${d.base.key}; use one of ${Object.keys(d.base.tokens).join(', ')}`,
    )
  const recipient = getAddress(req.recipientEvm) as Address

  const inputAmount = toBaseUnits(req.uiAmount, input.decimals, 'uiAmount')
  if (inputAmount >= 1n << 64n)
    throw new BaseError('AMOUNT_OUT_OF_RANGE', `uiAmount ${req.uiAmount} is more than a Solana token account can hold`)
  const outputAmount = rescaleExact(inputAmount, input.decimals, output.decimals, 'uiAmount')
  const cap = d.limits.xchainMaxUsd
  if (inputAmount > usdToUnits(cap, input.decimals)) {
    throw new BaseError(
      'AMOUNT_TOO_LARGE',
      `uiAmount ${fromBaseUnits(inputAmount, input.decimals)} ${input.symbol} is above the cross-chain ` +
        `cap of ${cap} (xchainMaxUsd): reduce the size, e.g. split it into orders of at most ${cap}`,
    )
  }

  const userToken = ataOf(user, input)
  const [balance, latest] = await Promise.all([
    rpc(() => d.solana.reads.multipleAccounts([userToken], 'confirmed')).then(([info]) =>
      tokenAmount(userToken, info ?? null, input),
    ),
    rpc(() => d.solana.reads.latestBlockhash('confirmed')),
  ])
  if (balance < inputAmount) {
    throw new BaseError(
      'INSUFFICIENT_BALANCE',
      `${user.toBase58()} holds ${fromBaseUnits(balance, input.decimals)} ` +
        `${input.symbol} in its associated token account, less than uiAmount ` +
        `${fromBaseUnits(inputAmount, input.decimals)}: fund the wallet or reduce the amount`,
    )
  }

  // The origin program checks its deadlines against the cluster's clock, which need not be ours.
  const now = await rpc(() => solanaNow(d.solana.reads))
  const order: SolOrder = {
    program: program.toBytes(),
    user: user.toBytes(),
    inputMint: input.mint.toBytes(),
    inputAmount,
    destChain: chainRef(d.base.spec.caip2),
    outputToken: evmParty(output.address),
    outputAmount,
    recipient: evmParty(recipient),
    fillDeadline: BigInt(now + d.timing.fillSeconds),
    expires: BigInt(now + d.timing.expirySeconds),
    nonce: randomBytes(8).readBigUInt64LE(),
  }
  const orderId = solOrderId(order)
  // Compiled to bytes once, as web3.js's compileToLegacyMessage() would (daemon/chains/solana/legacy-message.ts).
  const message = compileLegacyMessage(
    d.solver.publicKey,
    [openInstruction({ order, orderId, payer: d.solver.publicKey, userToken })],
    latest.blockhash,
  )
  const solverSignature = signMessage(d.solver, message)
  const openRef = bs58.encode(solverSignature)

  const newOrder: NewOrder = {
    orderId,
    rail: 'sol-origin',
    user: user.toBase58(),
    inSymbol: input.symbol,
    outSymbol: output.symbol,
    inputToken: input.mint.toBase58(),
    inputAmount,
    destChain: order.destChain as `0x${string}`,
    outputToken: output.address,
    outputAmount,
    recipient,
    fillDeadline: Number(order.fillDeadline),
    expires: Number(order.expires),
    nonce: order.nonce,
    orderData: encodeSolOrder(order, userToken),
    openRef,
    openValidUntil: latest.lastValidBlockHeight,
  }
  const response: SolOriginBuilt = {
    rail: 'sol-origin',
    txB64: legacyWire([solverSignature, ...Array<null>(message[0]! - 1).fill(null)], message).toString('base64'),
    orderId,
    inAmount: ui(inputAmount, input.decimals),
    outAmount: ui(outputAmount, output.decimals),
    inAmountBase: inputAmount.toString(),
    outAmountBase: outputAmount.toString(),
    inToken: input.symbol,
    outToken: output.symbol,
    recipient,
    fillDeadline: newOrder.fillDeadline,
    expires: newOrder.expires,
    blockhash: latest.blockhash,
    lastValidBlockHeight: latest.lastValidBlockHeight,
    feePayer: d.solver.publicKey.toBase58(),
    status: `/api/xchain/status/${orderId}?rail=sol-origin`,
  }
  return { order: newOrder, reserve: { network: d.base.key, token: output.symbol, amount: outputAmount }, response }
}
